#include "runner/report/queue_chart.h"

#include <spdlog/fmt/fmt.h>

namespace fabriclab::runner::report {

std::string queue_depth_chart_script(const std::vector<ScenarioSeries>& series,
                                     const std::string& title, const std::string& svg_name) {
  std::string blocks;
  std::string plot;
  int drawn = 0;
  for (const ScenarioSeries& one : series) {
    if (one.queue_depth_kb.empty()) continue;
    blocks += fmt::format("$depth{} << EOD\n# {}: t_s depth_kib\n", drawn, one.name);
    for (const auto& [t, kb] : one.queue_depth_kb) blocks += fmt::format("{:.3f} {:.1f}\n", t, kb);
    blocks += "EOD\n";
    plot += fmt::format("{}$depth{} using 1:2 with steps lw 2 title {}", plot.empty() ? "plot " : ", \\\n     ",
                        drawn, gnuplot_quote(one.label.empty() ? one.name : one.label));
    ++drawn;
  }
  if (drawn == 0) {  // an empty chart, still a valid one
    blocks = "$depth0 << EOD\n0 NaN\nEOD\n";
    plot = "plot $depth0 using 1:2 with lines notitle";
  }
  return script_preamble(svg_name, title) + blocks +
         "set xlabel 'seconds since the job''s first step'\n"
         "set ylabel 'queue depth, KiB (deepest in each second)'\n"
         "set yrange [0:*]\n" +
         plot + "\n";
}

}  // namespace fabriclab::runner::report
