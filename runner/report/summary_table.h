// The summary table printed after a lab run (and by `fabriclab replay
// --summary`): one row per scenario, fitting in 100 columns.
//
//                                              wall      x  median   p99  comm   TCP         final
//   scenario  condition        status          s  clean      ms    ms     %  retx  drops   loss
//   -----------------------------------------------------------------------------------------
//   clean     no impairment    COMPLETED     8.0   1.00     100   100    25     0      0  1.216
//   both      +50 ms latency   STALLED 41/80 16.4    --     400   400    25    57     28  1.922
//
// Absent values print as "--". The slowdown column is headed by what it is
// against: "x clean", the one other baseline ("x same-host"), or "x base"
// with a note naming each scenario's baseline (slowdown_yardstick.h). Notes
// under the table define the columns and give the message of every scenario
// that did not complete. Plain ASCII, no
// colour: it goes to the terminal, the asciicast and READMEs alike.
// Pure function, thread-safe.
#pragma once

#include <string>
#include <vector>

#include "runner/report/scenario_summary.h"

namespace fabriclab::runner::report {

constexpr int kTableWidth = 100;

// The table, header and notes included, each line ending in '\n'.
std::string format_summary_table(const std::vector<ScenarioSummary>& summaries);

// "COMPLETED", "STALLED 41/80" (steps done/planned for anything that did not
// complete and has a plan), "SKIPPED", ...
std::string format_status(const ScenarioSummary& summary);

}  // namespace fabriclab::runner::report
