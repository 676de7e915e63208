#include "runner/report/timeline_chart.h"

#include <spdlog/fmt/fmt.h>

#include <algorithm>

namespace fabriclab::runner::report {

std::string timeline_chart_script(const std::vector<ScenarioSeries>& series,
                                  const std::string& title, const std::string& svg_name) {
  // Rows top to bottom: each scenario's ranks, a gap between scenarios.
  std::string data = "$timeline << EOD\n# row compute_ms wait_ms\n";
  std::string tics;
  double row = 0;
  for (const ScenarioSeries& one : series) {
    if (one.ranks.empty()) continue;
    for (const RankTimes& t : one.ranks) {
      data += fmt::format("{:.1f} {:.3f} {:.3f}\n", row, t.compute_ms, t.wait_ms);
      tics += fmt::format("{}{} {:.1f}", tics.empty() ? "" : ", ",
                          gnuplot_quote(fmt::format("{} r{}", one.name, t.rank)), row);
      row += 1;
    }
    row += 0.5;
  }
  data += "EOD\n";
  if (tics.empty()) tics = "'' 0";
  return script_preamble(svg_name, title) + data +
         "set xlabel 'ms of a median step: compute, then waiting in the allreduce'\n"
         "set ytics (" + tics + ")\n" +
         // Limits high to low: the first scenario's r0 on top.
         fmt::format("set yrange [{:.1f}:-0.6]\n", std::max(0.4, row - 0.9)) +
         "set xrange [0:*]\n"
         "set grid noytics\n"
         "set style fill solid 1.0 noborder\n"
         "plot $timeline using ($2/2):1:($2/2):(0.35) with boxxyerror lc rgb '#33658a' "
         "title 'compute', \\\n"
         "     $timeline using ($2+$3/2):1:($3/2):(0.35) with boxxyerror lc rgb '#f6ae2d' "
         "title 'waiting in the allreduce'\n";
}

}  // namespace fabriclab::runner::report
