#include "runner/report/sweep_chart.h"

#include <spdlog/fmt/fmt.h>

#include <algorithm>

#include "runner/report/sweep_table.h"

namespace fabriclab::runner::report {
namespace {

std::string percent_or_nan(const std::optional<double>& share) {
  return share ? fmt::format("{:.2f}", *share * 100) : "NaN";
}

// One colour per sweep; the measures of one sweep share it.
constexpr const char* kColours[] = {"#c0392b", "#2980b9", "#27ae60", "#8e44ad", "#d35400"};

std::string sweep_lines(const std::string& sweep, size_t index) {
  const std::string block = fmt::format("$sweep{}", index);
  const char* colour = kColours[index % std::size(kColours)];
  const auto line = [&](int column, const char* style, const std::string& what) {
    return fmt::format("     {} using 1:{} with linespoints lw 2 {} lc rgb '{}' title {}, \\\n",
                       block, column, style, colour, gnuplot_quote(sweep + ": " + what));
  };
  return line(2, "pt 7", "job, extra step time %") +
         line(3, "dt 2 pt 5", "one flow, goodput lost %") +
         line(4, "dt 3 pt 9", "one flow, bytes resent %");
}

}  // namespace

std::vector<std::string> sweep_names(const std::vector<ScenarioSeries>& series) {
  std::vector<std::string> names;
  for (const ScenarioSeries& one : series)
    if (!one.sweep.empty() && std::find(names.begin(), names.end(), one.sweep) == names.end())
      names.push_back(one.sweep);
  return names;
}

std::string sweep_chart_rows(const std::vector<ScenarioSeries>& series, const std::string& sweep) {
  std::string rows;
  for (const ScenarioSeries& one : series) {
    if (one.sweep != sweep) continue;
    rows += fmt::format("{} {} {} {}\n", one.sweep_value,
                        percent_or_nan(job_extra_share(one.step_slowdown)),
                        percent_or_nan(flow_goodput_lost_share(one.flow_slowdown)),
                        percent_or_nan(one.flow_retx_share));
  }
  return rows;
}

std::string sweep_chart_script(const std::vector<ScenarioSeries>& series, const std::string& title,
                               const std::string& svg_name) {
  std::vector<std::string> sweeps = sweep_names(series);
  std::string blocks;
  std::string plot = "plot \\\n";
  for (size_t i = 0; i < sweeps.size(); ++i) {
    blocks += fmt::format("$sweep{} << EOD\n# {}: value job_extra_pct flow_goodput_lost_pct "
                          "flow_resent_pct\n{}EOD\n",
                          i, sweeps[i], sweep_chart_rows(series, sweeps[i]));
    plot += sweep_lines(sweeps[i], i);
  }
  if (sweeps.empty()) {  // an empty chart, still a valid one
    blocks = "$sweep0 << EOD\n0 NaN NaN NaN\nEOD\n";
    plot += "     $sweep0 using 1:2 with lines notitle, \\\n";
  }
  std::string xlabel = "swept value";
  if (!sweeps.empty()) {
    xlabel += " (";
    for (size_t i = 0; i < sweeps.size(); ++i) xlabel += (i ? ", " : "") + sweeps[i];
    xlabel += ")";
  }
  return script_preamble(svg_name, title) + blocks + "set xlabel " + gnuplot_quote(xlabel) +
         "\n"
         "set ylabel '% cost (log scale; below 1% not drawn)'\n"
         "set logscale y\n"
         "set yrange [1:*]\n"
         "set key top left\n" +
         plot + "     100 with lines dt 2 lc rgb '#888888' title 'step time doubled'\n";
}

}  // namespace fabriclab::runner::report
