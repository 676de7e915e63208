#include "runner/report/render_report.h"

#include <spdlog/fmt/fmt.h>

#include <fstream>

#include "runner/report/charts.h"
#include "runner/report/run_directory.h"
#include "runner/report/scenario_summary.h"
#include "runner/report/summary_table.h"
#include "runner/report/table_kind.h"

namespace fabriclab::runner::report {
namespace {

// The tables run.json names ("tables"; absent = none), printed and written
// to the charts folder; an unknown name is a line in `out`, not an error
// (a recording from a newer fabriclab).
void render_tables(const RunDirectory& run, const std::vector<ScenarioSummary>& summaries,
                   const std::filesystem::path& charts_dir, std::ostream& out) {
  const auto listed = run.manifest.find("tables");
  if (listed == run.manifest.end() || !listed->is_array()) return;
  for (const auto& name : *listed) {
    const TableKind* table = name.is_string() ? find_table(name.get<std::string>()) : nullptr;
    if (!table) {
      out << "\nno table " << name.dump() << " in this fabriclab\n";
      continue;
    }
    const std::string text = table->write(summaries);
    if (text.empty()) continue;
    out << "\n" << text;
    std::filesystem::create_directories(charts_dir);
    std::ofstream(charts_dir / (std::string(table->name) + ".txt")) << text;
  }
}

}  // namespace

void render_report(const std::filesystem::path& run_dir, std::ostream& out,
                   bool charts_in_terminal) {
  ReportOptions options;
  options.charts_in_terminal = charts_in_terminal;
  render_report(run_dir, out, options);
}

void render_report(const std::filesystem::path& run_dir, std::ostream& out,
                   const ReportOptions& options) {
  const RunDirectory run = read_run_directory(run_dir);
  const std::vector<ScenarioSummary> summaries = summarize_run(run);

  out << "\n" << format_summary_table(summaries) << std::flush;
  if (!options.conditions.empty()) out << "Your conditions: " << options.conditions << "\n";

  ChartOptions chart_options;
  chart_options.charts_dir = options.charts_dir.empty() ? run_dir / "charts" : options.charts_dir;
  render_tables(run, summaries, chart_options.charts_dir, out);
  chart_options.text = options.charts_in_terminal;
  chart_options.text_color = options.terminal_color;
  chart_options.timeout = options.gnuplot_timeout;
  const ChartOutput charts = render_charts(run, summaries, chart_options);

  if (!charts.text.empty()) out << "\n" << charts.text;
  for (const std::string& problem : charts.problems) out << "\n" << problem << "\n";

  out << fmt::format("\nResults in {}/\n", run_dir.string());
  out << "  run.json        the manifest with every scenario's result\n";
  out << "  metrics.jsonl   every rank's step, eval and counter events\n";
  for (const auto& svg : charts.svg_files) {
    out << fmt::format("  {}\n", svg.string());
  }
  if (charts.svg_files.empty()) {
    out << fmt::format("  {}/   chart data and gnuplot scripts\n",
                       chart_options.charts_dir.string());
  }
  out << std::flush;
}

}  // namespace fabriclab::runner::report
