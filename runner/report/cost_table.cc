#include "runner/report/cost_table.h"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <cmath>
#include <locale>

#include "runner/report/result/result_parts.h"
#include "runner/report/slowdown_yardstick.h"
#include "runner/report/wait_cost.h"

namespace fabriclab::runner::report {
namespace {

// The standard library's own digit grouping, in a locale of its own so the
// process's locale is never touched (fmt's "L" uses the one passed).
struct ThousandsComma : std::numpunct<char> {
  char do_thousands_sep() const override { return ','; }
  std::string do_grouping() const override { return "\3"; }
};

const std::locale& grouped() {
  static const std::locale locale(std::locale::classic(), new ThousandsComma);
  return locale;
}

std::string gpus_label(double gpus) { return format_count(gpus) + " GPUs"; }

size_t name_width(const std::vector<PricedScenario>& rows) {
  size_t width = 8;
  for (const PricedScenario& row : rows) width = std::max(width, row.summary->name.size());
  return width;
}

// The columns against the baseline say which one: "x clean" and "clean's"
// when every priced scenario is measured against clean, "x base" and
// "base's" with a legend when they have different baselines.
std::string idle_time_table(const std::vector<PricedScenario>& rows) {
  const size_t w = name_width(rows);
  std::vector<ScenarioSummary> priced;
  for (const PricedScenario& row : rows) priced.push_back(*row.summary);
  const SlowdownYardstick yardstick = slowdown_yardstick(priced);
  const std::string x_header = "x " + yardstick.label;
  const std::string base_header = yardstick.label + "'s";
  const size_t xw = std::max<size_t>(7, x_header.size());
  const size_t bw = std::max<size_t>(9, base_header.size());
  std::string out =
      fmt::format("{:<{}}  {:>{}}  {:>9}  {:>{}}  {:>8}  {:>9}  {:>19}\n", "scenario", w, x_header,
                  xw, "ms/step", base_header, bw, "extra", "steps/h", "idle s per GPU-hour");
  for (const PricedScenario& row : rows) {
    const WaitCost& c = row.cost;
    out += fmt::format(
        "{:<{}}  {:>{}.2f}  {:>9.0f}  {:>{}.0f}  {:>+8.0f}  {:>9}  {:>12} ({:>3.0f}%)\n",
        row.summary->name, w, result_number(row.summary->result, "slowdown").value_or(0), xw,
        c.step_s * 1000, c.baseline_step_s * 1000, bw, c.extra_ms, format_count(c.steps_per_hour),
        format_count(c.idle_s_per_gpu_hour), c.idle_s_per_gpu_hour / kSecondsPerHour * 100);
  }
  return out + yardstick_legend(yardstick, "  ");
}

std::string dollars_table(const std::vector<PricedScenario>& rows, const CostSettings& settings) {
  const size_t w = name_width(rows);
  std::string out = fmt::format("{:<{}}", "idle $ per hour", w + 2);
  for (double gpus : settings.gpus) out += fmt::format("  {:>12}", gpus_label(gpus));
  out += "\n";
  for (const PricedScenario& row : rows) {
    out += fmt::format("{:<{}}", row.summary->name, w + 2);
    for (double gpus : settings.gpus) {
      out +=
          fmt::format("  {:>12}", format_usd(idle_usd_per_hour(row.cost.idle_s_per_gpu_hour, gpus,
                                                               settings.usd_per_gpu_hour)));
    }
    out += "\n";
  }
  out += fmt::format("\n{:<{}}  {:>9}", "worst stall", w, "stall ms");
  for (double gpus : settings.gpus) out += fmt::format("  {:>12}", gpus_label(gpus));
  out += "\n";
  for (const PricedScenario& row : rows) {
    if (!row.cost.stall_ms) continue;
    out += fmt::format("{:<{}}  {:>9.0f}", row.summary->name, w, *row.cost.stall_ms);
    for (double gpus : settings.gpus) {
      out += fmt::format("  {:>12}", format_usd(stall_usd(*row.cost.stall_ms / 1000, gpus,
                                                          settings.usd_per_gpu_hour)));
    }
    out += "\n";
  }
  return out;
}

}  // namespace

std::string format_usd(double usd) {
  if (std::fabs(usd) >= 100) return fmt::format(grouped(), "${:L}", std::llround(usd));
  return fmt::format("${:.2f}", usd);
}

std::string format_count(double count) {
  return fmt::format(grouped(), "{:L}", std::llround(count));
}

std::string format_cluster_cost(const CostSettings& settings) {
  if (settings.gpus.empty()) return "";
  std::string out = fmt::format("{:<12}  {:>12}  {:>12}  {:>12}\n", "cluster", "per hour",
                                "per minute", "per second");
  for (double gpus : settings.gpus) {
    const double hour = cluster_usd_per_hour(gpus, settings.usd_per_gpu_hour);
    out += fmt::format("{:<12}  {:>12}  {:>12}  {:>12}\n", gpus_label(gpus), format_usd(hour),
                       format_usd(hour / 60), format_usd(hour / kSecondsPerHour));
  }
  return out;
}

std::string format_cost_table(const std::vector<ScenarioSummary>& summaries,
                              const CostSettings& settings) {
  const std::vector<PricedScenario> rows = priced_scenarios(summaries, settings.scenarios);
  if (rows.empty()) return "";
  return fmt::format(
      "What waiting costs at ${:g} per GPU-hour. Every GPU waits at the same barrier, so each\n"
      "GPU-hour of the slowed job holds the idle seconds below, on every GPU of the cluster.\n\n"
      "{}\n{}\n{}\n"
      "extra: ms per step above the baseline's (wall time / steps, stalls included); idle s per\n"
      "GPU-hour = extra x steps/h. Worst stall: the longest step after the first minus the\n"
      "baseline's longest (both carry warm-up), priced as that many seconds of the whole "
      "cluster.\n",
      settings.usd_per_gpu_hour, format_cluster_cost(settings), idle_time_table(rows),
      dollars_table(rows, settings));
}

std::string format_cost_table(const std::vector<ScenarioSummary>& summaries) {
  return format_cost_table(summaries, CostSettings{});
}

}  // namespace fabriclab::runner::report
