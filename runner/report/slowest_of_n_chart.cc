#include "runner/report/slowest_of_n_chart.h"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <optional>


namespace fabriclab::runner::report {
namespace {

std::string or_nan(const std::optional<double>& value) {
  return value ? fmt::format("{:.2f}", *value) : "NaN";
}

struct Row {
  size_t n;
  std::string cells;
};

// Rows "N median predicted mean_model", by N, of the scenarios with (tail)
// or without (clean) a delay on every link that stepped.
std::string rows(const std::vector<ScenarioSeries>& series, bool tail) {
  std::vector<Row> found;
  for (const ScenarioSeries& one : series) {
    const ScenarioResult& r = one.result;
    if (r.link_delay_ms.has_value() != tail || one.ranks.empty() || r.median_step_ms <= 0) continue;
    found.push_back({one.ranks.size(), fmt::format("{} {:.2f} {} {}\n", one.ranks.size(),
                                                    r.median_step_ms, or_nan(r.predicted_step_ms),
                                                    or_nan(r.mean_model_step_ms))});
  }
  std::stable_sort(found.begin(), found.end(),
                   [](const Row& a, const Row& b) { return a.n < b.n; });
  std::string text;
  for (const Row& row : found) text += row.cells;
  return text.empty() ? "NaN NaN NaN NaN\n" : text;
}

}  // namespace

std::string slowest_of_n_chart_script(const std::vector<ScenarioSeries>& series,
                                      const std::string& title, const std::string& svg_name) {
  return script_preamble(svg_name, title) +
         "$tail << EOD\n# N median_step_ms predicted_step_ms mean_model_step_ms\n" +
         rows(series, true) + "EOD\n$clean << EOD\n# N median_step_ms\n" + rows(series, false) +
         "EOD\n"
         "set xlabel 'ranks N (log scale)'\n"
         "set ylabel 'median step (ms)'\n"
         "set logscale x 2\n"
         "set xrange [1.5:*]\n"
         "set yrange [0:*]\n"
         "set key top left\n"
         "plot $tail using 1:2 with linespoints lw 2 pt 7 lc rgb '#c0392b' title "
         "'tail, measured', \\\n"
         "     $tail using 1:3 with linespoints lw 2 dt 2 pt 6 lc rgb '#c0392b' title "
         "'tail, predicted: slowest of N links', \\\n"
         "     $tail using 1:4 with linespoints lw 1 dt 3 pt 4 lc rgb '#888888' title "
         "'tail, predicted: the average link', \\\n"
         "     $clean using 1:2 with linespoints lw 2 pt 5 lc rgb '#2980b9' title "
         "'clean, measured'\n";
}

}  // namespace fabriclab::runner::report
