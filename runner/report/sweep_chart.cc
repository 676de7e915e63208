#include "runner/report/sweep_chart.h"

#include <spdlog/fmt/fmt.h>

#include "runner/report/sweep_table.h"

namespace fabriclab::runner::report {
namespace {

std::string percent_or_nan(const std::optional<double>& share) {
  return share ? fmt::format("{:.2f}", *share * 100) : "NaN";
}

}  // namespace

std::string sweep_chart_rows(const std::vector<ScenarioSeries>& series) {
  std::string sweep;
  std::string rows;
  for (const ScenarioSeries& one : series) {
    if (one.sweep.empty() || (!sweep.empty() && one.sweep != sweep)) continue;
    sweep = one.sweep;
    rows += fmt::format("{} {} {} {}\n", one.sweep_value,
                        percent_or_nan(job_extra_share(one.step_slowdown)),
                        percent_or_nan(flow_goodput_lost_share(one.flow_slowdown)),
                        percent_or_nan(one.flow_retx_share));
  }
  return rows;
}

std::string sweep_chart_script(const std::vector<ScenarioSeries>& series, const std::string& title,
                               const std::string& svg_name) {
  std::string sweep;
  for (const ScenarioSeries& one : series)
    if (sweep.empty()) sweep = one.sweep;
  const std::string rows = sweep_chart_rows(series);
  return script_preamble(svg_name, title) +
         "$sweep << EOD\n# value job_extra_pct flow_goodput_lost_pct flow_resent_pct\n" +
         (rows.empty() ? "0 NaN NaN NaN\n" : rows) + "EOD\n" + "set xlabel " +
         gnuplot_quote("swept value (" + (sweep.empty() ? "no sweep" : sweep) + ")") +
         "\n"
         "set ylabel '% cost'\n"
         "set yrange [0:*]\n"
         "set key top left\n"
         "plot $sweep using 1:2 with linespoints lw 2 pt 7 lc rgb '#c0392b' "
         "title 'job: extra step time %', \\\n"
         "     $sweep using 1:3 with linespoints lw 2 pt 5 lc rgb '#2980b9' "
         "title 'one flow: goodput lost %', \\\n"
         "     $sweep using 1:4 with linespoints lw 2 pt 9 lc rgb '#27ae60' "
         "title 'one flow: bytes resent %', \\\n"
         "     100 with lines dt 2 lc rgb '#888888' title 'step time doubled'\n";
}

}  // namespace fabriclab::runner::report
