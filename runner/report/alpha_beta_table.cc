#include "runner/report/alpha_beta_table.h"

#include <spdlog/fmt/fmt.h>

#include <map>

namespace fabriclab::runner::report {

std::string format_size(double bytes) {
  if (bytes >= 1 << 20) return fmt::format("{:.3g} MiB", bytes / (1 << 20));
  if (bytes >= 1 << 10) return fmt::format("{:.3g} KiB", bytes / (1 << 10));
  return fmt::format("{:.0f} B", bytes);
}

namespace {

bool has_fit(const ScenarioSummary& s) {
  return s.result.fit_steps && s.result.fit_predicted_us.size() == s.result.fit_points.size();
}

std::string fit_rows(const std::vector<const ScenarioSummary*>& fitted) {
  const std::string header =
      fmt::format("{:<14} {:<17} {:>5} {:>8} {:>10} {:>10} {:>10} {:>9}\n", "scenario",
                  "algorithm", "steps", "alpha ms", "a x st. ms", "busbw GB/s", "crossover",
                  "worst err");
  std::string rows = header + std::string(header.size() - 1, '-') + "\n";
  for (const ScenarioSummary* s : fitted) {
    const ScenarioResult& r = s->result;
    rows += fmt::format("{:<14} {:<17} {:>5} {:>8.2f} {:>10.1f} {:>10.4f} {:>10} {:>8.0f}%\n",
                        s->name, r.algorithm.value_or("?"), *r.fit_steps, *r.fit_alpha_ms,
                        *r.fit_latency_ms, *r.fit_busbw_gb_per_s, format_size(*r.crossover_bytes),
                        *r.fit_error * 100);
  }
  return rows;
}

std::string size_rows(const std::vector<const ScenarioSummary*>& fitted) {
  // size -> scenario index -> (measured, predicted) in ms
  std::map<double, std::map<size_t, std::pair<double, double>>> by_size;
  for (size_t i = 0; i < fitted.size(); ++i) {
    const ScenarioResult& r = fitted[i]->result;
    for (size_t p = 0; p < r.fit_points.size(); ++p)
      by_size[r.fit_points[p].bytes][i] = {r.fit_points[p].time_us / 1e3,
                                           r.fit_predicted_us[p] / 1e3};
  }
  std::string header = fmt::format("{:>9}", "size");
  for (const ScenarioSummary* s : fitted) header += fmt::format(" {:>19}", s->name);
  std::string rows = header + "\n" + std::string(header.size(), '-') + "\n";
  for (const auto& [size, cells] : by_size) {
    size_t fastest = cells.begin()->first;
    for (const auto& [i, times] : cells)
      if (times.first < cells.at(fastest).first) fastest = i;
    rows += fmt::format("{:>9}", format_size(size));
    for (size_t i = 0; i < fitted.size(); ++i) {
      const auto cell = cells.find(i);
      rows += cell == cells.end()
                  ? fmt::format(" {:>19}", "--")
                  : fmt::format(" {:>9.1f} ({:>7.1f}){}", cell->second.first,
                                cell->second.second, i == fastest ? "*" : " ");
    }
    rows += "\n";
  }
  return rows;
}

}  // namespace

std::string format_alpha_beta_table(const std::vector<ScenarioSummary>& summaries) {
  std::vector<const ScenarioSummary*> fitted;
  for (const ScenarioSummary& s : summaries)
    if (has_fit(s)) fitted.push_back(&s);
  if (fitted.empty()) return "";
  return "The alpha-beta model, fitted to each scenario's own sweep:\n"
         "time = alpha x steps + bytes / bandwidth\n\n" +
         fit_rows(fitted) +
         "\nsteps: the algorithm's sequential exchanges on N ranks (ring 2(N-1), halving_doubling\n"
         "and bcube 2 log2 N).  alpha, bandwidth: least squares on the relative error over the\n"
         "sizes (runner/report/alpha_beta_fit.h).  busbw: the fitted bandwidth x 2(N-1)/N.\n"
         "crossover: the size where alpha x steps = bytes / bandwidth -- below it the round\n"
         "trips decide the time, above it the bytes.  worst err: the model's largest miss.\n\n"
         "Measured (predicted) ms per allreduce, out-of-place, mean over ranks; * the fastest:\n\n" +
         size_rows(fitted);
}

}  // namespace fabriclab::runner::report
