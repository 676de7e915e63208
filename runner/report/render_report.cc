#include "runner/report/render_report.h"

#include <spdlog/fmt/fmt.h>

#include "runner/report/charts.h"
#include "runner/report/run_directory.h"
#include "runner/report/scenario_summary.h"
#include "runner/report/summary_table.h"

namespace fabriclab::runner::report {

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

  ChartOptions chart_options;
  chart_options.charts_dir = options.charts_dir.empty() ? run_dir / "charts" : options.charts_dir;
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
