// Charts by name: what a lab.toml lists in `[report] charts` (labs/SCHEMA.md,
// "Report") and run.json keeps as "charts", so a replay draws the same ones.
//
//   loss_vs_time   training loss (mean over ranks) against wall-clock time
//   step_times     step time per step (slowest rank), log y
//   timeline       per scenario and rank, a median step: compute, then wait
//   busbw          an allreduce sweep's busbw against message size
//   link_bytes     bytes each rank's link carried (its counters), per scenario
//   sweep          a [[sweep]]: the job's extra time vs one flow's costs, in %
//   queue_depth    a switch queue's depth over time, per scenario (lab 08)
//   alpha_beta_fit an allreduce sweep's time per size beside the fitted
//                  alpha-beta model, per scenario (lab 11)
//
// A chart is a gnuplot script writer over the scenarios' series
// (chart_data.h) plus one row in chart_kinds.cc. charts.cc runs gnuplot on
// whichever charts a run names. Thread safety: immutable table.
#pragma once

#include <string>
#include <vector>

#include "runner/report/chart_data.h"

namespace fabriclab::runner::report {

// Writes a gnuplot script drawing `svg_name`, or text when started with
// -e "text_mode='mono'" (chart_data.h's contract for both charts).
using ChartScriptWriter = std::string (*)(const std::vector<ScenarioSeries>& series,
                                          const std::string& title, const std::string& svg_name);

struct ChartKind {
  const char* name;   // file stem: <name>.svg, <name>.gp, <name>.txt
  const char* title;  // units in the title: the text terminal drops y labels
  ChartScriptWriter script;
};

// The chart named `name`, or null.
const ChartKind* find_chart(const std::string& name);
std::vector<std::string> chart_names();
// What a lab without `[report] charts` gets (and a run.json without "charts").
const std::vector<std::string>& default_charts();

}  // namespace fabriclab::runner::report
