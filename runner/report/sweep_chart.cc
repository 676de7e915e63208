#include "runner/report/sweep_chart.h"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <optional>

#include "runner/report/result/result_parts.h"
#include "runner/report/sweep_table.h"

namespace fabriclab::runner::report {
namespace {

std::string percent_or_nan(const std::optional<double>& share) {
  return share ? fmt::format("{:.2f}", *share * 100) : "NaN";
}

// What the chart draws of each point: a result field by name
// (result/result_parts.h) as a share (sweep_table.h's), the name of its
// column in the data block and its line.
struct Measure {
  const char* field;
  std::optional<double> (*share)(const std::optional<double>&);
  const char* column;
  const char* style;
  const char* what;  // in the key, after the sweep's name
};

std::optional<double> as_it_is(const std::optional<double>& share) { return share; }

const Measure kMeasures[] = {
    {"step_slowdown", job_extra_share, "job_extra_pct", "pt 7", "job, extra step time %"},
    {"flow_slowdown", flow_goodput_lost_share, "flow_goodput_lost_pct", "dt 2 pt 5",
     "one flow, goodput lost %"},
    {"flow_retx_share", as_it_is, "flow_resent_pct", "dt 3 pt 9", "one flow, bytes resent %"},
};

// One colour per sweep; the measures of one sweep share it.
constexpr const char* kColours[] = {"#c0392b", "#2980b9", "#27ae60", "#8e44ad", "#d35400"};

std::string sweep_lines(const std::string& sweep, size_t index) {
  const std::string block = fmt::format("$sweep{}", index);
  const char* colour = kColours[index % std::size(kColours)];
  std::string lines;
  int column = 2;  // 1 is the value
  for (const Measure& m : kMeasures)
    lines += fmt::format("     {} using 1:{} with linespoints lw 2 {} lc rgb '{}' title {}, \\\n",
                         block, column++, m.style, colour, gnuplot_quote(sweep + ": " + m.what));
  return lines;
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
    rows += fmt::format("{}", one.sweep_value);
    for (const Measure& m : kMeasures)
      rows += " " + percent_or_nan(m.share(result_number(one.result, m.field)));
    rows += "\n";
  }
  return rows;
}

std::string sweep_chart_script(const std::vector<ScenarioSeries>& series, const std::string& title,
                               const std::string& svg_name) {
  std::vector<std::string> sweeps = sweep_names(series);
  std::string blocks;
  std::string plot = "plot \\\n";
  std::string columns = "value", nothing = "0";
  for (const Measure& m : kMeasures) columns += std::string(" ") + m.column, nothing += " NaN";
  for (size_t i = 0; i < sweeps.size(); ++i) {
    blocks += fmt::format("$sweep{} << EOD\n# {}: {}\n{}EOD\n", i, sweeps[i], columns,
                          sweep_chart_rows(series, sweeps[i]));
    plot += sweep_lines(sweeps[i], i);
  }
  if (sweeps.empty()) {  // an empty chart, still a valid one
    blocks = "$sweep0 << EOD\n" + nothing + "\nEOD\n";
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
