#include "runner/report/charts.h"

#include <algorithm>
#include <fstream>
#include <stdexcept>

#include <spdlog/fmt/fmt.h>

#include "runner/report/chart_data.h"
#include "runner/report/chart_kind.h"

namespace fabriclab::runner::report {
namespace {

void write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out.flush()) throw std::runtime_error(path.string() + ": cannot write");
}

std::string lab_title(const RunDirectory& run) {
  const nlohmann::json lab = run.manifest.value("lab", nlohmann::json::object());
  if (!lab.is_object()) return "";
  const std::string id = lab.value("id", std::string());
  return id.empty() ? "" : "lab " + id;
}

struct Chart {
  std::string stem;
  std::string script;
};

// The charts run.json names ("charts"), else the defaults; unknown names
// (a run.json from a newer fabriclab) become problems, not failures.
std::vector<const ChartKind*> charts_of(const RunDirectory& run, std::vector<std::string>& problems) {
  std::vector<std::string> names = default_charts();
  const auto listed = run.manifest.find("charts");
  if (listed != run.manifest.end() && listed->is_array()) {
    names.clear();
    for (const auto& name : *listed) names.push_back(name.is_string() ? name.get<std::string>() : name.dump());
  }
  std::vector<const ChartKind*> kinds;
  for (const std::string& name : names) {
    if (const ChartKind* kind = find_chart(name)) {
      kinds.push_back(kind);
    } else {
      problems.push_back("chart '" + name + "' not drawn: this fabriclab does not know it");
    }
  }
  return kinds;
}

}  // namespace

ChartOutput render_charts(const RunDirectory& run, const std::vector<ScenarioSummary>& summaries,
                          const ChartOptions& options) {
  ChartOutput output;
  std::filesystem::create_directories(options.charts_dir);
  std::error_code ignored;
  std::filesystem::remove(options.charts_dir / "gnuplot.log", ignored);

  std::vector<ScenarioSeries> series;
  for (const ScenarioSummary& summary : summaries) {
    const auto events = run.events.find(summary.name);
    if (events == run.events.end()) continue;
    std::string label = summary.name;
    if (!summary.condition.empty()) label += ": " + summary.condition;
    if (summary.status != rundir::ScenarioStatus::kCompleted)
      label += " (" + status_word(summary) + ")";
    series.push_back(series_of(summary.name, label, events->second));
    series.back().ranks = summary.ranks.ranks;
    series.back().sweep = summary.sweep;
    series.back().sweep_value = summary.sweep_value;
    series.back().result = summary.result;
    if (!series.back().points.empty()) {
      write_file(options.charts_dir / data_file_name(summary.name),
                 format_data_file(series.back()));
    }
    if (!series.back().links.empty()) {
      write_file(options.charts_dir / links_file_name(summary.name),
                 format_links_file(series.back()));
    }
  }
  bool any_points = false;
  for (const ScenarioSeries& one : series) any_points = any_points || !one.points.empty();
  if (!any_points) {
    output.problems.push_back("no charts: no scenario completed a step");
    return output;
  }

  const std::string lab = lab_title(run);
  const std::string prefix = lab.empty() ? "" : lab + ": ";
  std::vector<Chart> charts;
  for (const ChartKind* kind : charts_of(run, output.problems)) {
    charts.push_back({kind->name, kind->script(series, prefix + kind->title,
                                               std::string(kind->name) + ".svg")});
  }
  for (const Chart& chart : charts) {
    write_file(options.charts_dir / (chart.stem + ".gp"), chart.script);
  }

  const auto gnuplot = find_gnuplot();
  if (!gnuplot) {
    output.problems.push_back(
        fmt::format("charts not drawn: gnuplot not found ({}); the data and scripts are in {}",
                    kGnuplotInstallHint, options.charts_dir.string()));
    return output;
  }
  const std::string text_mode = options.text_color ? "text_mode='ansi'" : "text_mode='mono'";
  for (const Chart& chart : charts) {
    const std::string script = chart.stem + ".gp";
    const GnuplotRun svg = run_gnuplot(*gnuplot, options.charts_dir, script, {}, options.timeout);
    const auto svg_path = options.charts_dir / (chart.stem + ".svg");
    if (svg.ok && std::filesystem::file_size(svg_path, ignored) > 0) {
      output.svg_files.push_back(svg_path);
    } else {
      output.problems.push_back(svg.ok ? svg_path.string() + ": gnuplot wrote nothing" : svg.error);
      continue;  // the text version would fail the same way
    }
    if (!options.text) continue;
    const GnuplotRun text =
        run_gnuplot(*gnuplot, options.charts_dir, script, {text_mode}, options.timeout);
    if (!text.ok) {
      output.problems.push_back(text.error);
      continue;
    }
    // gnuplot's dumb terminal starts each page with a form feed.
    std::string page = text.output;
    page.erase(std::remove(page.begin(), page.end(), '\f'), page.end());
    write_file(options.charts_dir / (chart.stem + ".txt"), page);
    output.text += page;
  }
  return output;
}

}  // namespace fabriclab::runner::report
