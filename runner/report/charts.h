// The run's charts, drawn by gnuplot from the metrics (not a plotting engine
// of our own): the charts run.json names ("charts", from the lab's
// `[report] charts`; default loss_vs_time and step_times -- chart_kind.h),
// every scenario on each chart, written to `charts_dir` with their data files (<scenario>.dat), scripts
// (*.gp) and text renderings (*.txt), and returned as text for the terminal.
//
// Failure is reported, not thrown: without gnuplot the data and scripts are
// still written and `problems` says "gnuplot not found: apt-get install
// gnuplot-nox"; the caller prints the table regardless. Only a charts_dir
// that cannot be created or written throws (std::runtime_error).
// Thread safety: see gnuplot.h (launches child processes).
#pragma once

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "runner/report/gnuplot.h"
#include "runner/report/run_directory.h"
#include "runner/report/scenario_summary.h"

namespace fabriclab::runner::report {

struct ChartOptions {
  std::filesystem::path charts_dir;                     // created if missing
  bool text = true;                                     // also render for the terminal
  bool text_color = false;                              // gnuplot's `dumb ansi` instead of `mono`
  std::chrono::milliseconds timeout = kGnuplotTimeout;  // per gnuplot run
};

struct ChartOutput {
  std::vector<std::filesystem::path> svg_files;  // the SVGs gnuplot wrote
  std::string text;                              // both charts for the terminal ("" if none)
  std::vector<std::string> problems;             // one line each, for the user
};

// Charts of `summaries` (their order, names and conditions), with the points
// taken from run.events.
ChartOutput render_charts(const RunDirectory& run, const std::vector<ScenarioSummary>& summaries,
                          const ChartOptions& options);

}  // namespace fabriclab::runner::report
