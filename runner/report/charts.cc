#include "runner/report/charts.h"

#include <algorithm>
#include <fstream>
#include <stdexcept>

#include <spdlog/fmt/fmt.h>

#include "runner/report/chart_data.h"

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
  const char* stem;
  std::string script;
};

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
    if (!series.back().points.empty()) {
      write_file(options.charts_dir / data_file_name(summary.name),
                 format_data_file(series.back()));
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
  // The units are in the titles too: the text terminal drops y labels.
  const Chart charts[] = {
      {"loss_vs_time",
       loss_chart_script(series,
                         prefix + "training loss (mean over ranks) against wall-clock time (s)",
                         "loss_vs_time.svg")},
      {"step_times",
       step_time_chart_script(series, prefix + "step time (ms, slowest rank, log scale) per step",
                              "step_times.svg")},
  };
  for (const Chart& chart : charts) {
    write_file(options.charts_dir / (std::string(chart.stem) + ".gp"), chart.script);
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
    const std::string script = std::string(chart.stem) + ".gp";
    const GnuplotRun svg = run_gnuplot(*gnuplot, options.charts_dir, script, {}, options.timeout);
    const auto svg_path = options.charts_dir / (std::string(chart.stem) + ".svg");
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
    write_file(options.charts_dir / (std::string(chart.stem) + ".txt"), page);
    output.text += page;
  }
  return output;
}

}  // namespace fabriclab::runner::report
