#include "runner/report/alpha_beta_chart.h"

#include <spdlog/fmt/fmt.h>

namespace fabriclab::runner::report {

std::string alpha_beta_chart_script(const std::vector<ScenarioSeries>& series,
                                    const std::string& title, const std::string& svg_name) {
  std::string blocks, plot;
  int index = 0;
  for (const ScenarioSeries& one : series) {
    const ScenarioResult& r = one.result;
    if (!r.fit_steps || r.fit_predicted_us.size() != r.fit_points.size()) continue;
    // Columns: size (bytes), measured ms, the model's ms.
    std::string rows;
    for (size_t i = 0; i < r.fit_points.size(); ++i)
      rows += fmt::format("{} {} {}\n", r.fit_points[i].bytes, r.fit_points[i].time_us / 1e3,
                          r.fit_predicted_us[i] / 1e3);
    blocks += fmt::format("$fit{} << EOD\n# {}: size_bytes measured_ms model_ms\n{}EOD\n", index,
                          one.name, rows);
    plot += plot.empty() ? "plot " : ", \\\n     ";
    plot += fmt::format(
        "$fit{0} using 1:2 with points pointtype 7 linecolor {1} title {2}, \\\n"
        "     $fit{0} using 1:3 with lines linewidth 2 linecolor {1} notitle",
        index, index + 1, gnuplot_quote(one.name + " (line: the model)"));
    ++index;
  }
  if (plot.empty()) {  // an empty chart, still a valid one
    blocks = "$fit0 << EOD\n1 1 1\nEOD\n";
    plot = "plot $fit0 using 1:2 with points notitle";
  }
  return script_preamble(svg_name, title) + blocks +
         "set xlabel 'message size (bytes, log scale)'\n"
         "set ylabel 'ms per allreduce (log scale)'\n"
         "set logscale x 2\n"
         "set logscale y\n"
         "set format x '%.0b%BB'\n" +
         plot + "\n";
}

}  // namespace fabriclab::runner::report
