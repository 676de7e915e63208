// Tables by name: what a lab.toml lists in `[report] tables` (labs/SCHEMA.md,
// "Report") and run.json keeps as "tables", printed after the summary table
// and written to charts/<name>.txt, so a replay shows the same ones.
//
//   wire_bytes   per scenario: the ring's payload 2(N-1)/N x S per rank and
//                step against the bytes each rank's device sent (lab 03)
//   scale_up     the student's measured wire bytes per parameter scaled to
//                7B..405B models, seconds per sync at 100/400/800 Gb/s with
//                1 and 8 NICs, against the 2-5 s step budget (lab 03)
//   per_rank     per scenario and rank: median compute and wait, share
//                waiting, bytes sent per step, steps it was last at the
//                barrier; the straggler, if any (lab 05)
//   cost         per scenario: its slowdown as idle GPU-seconds per hour and
//                dollars on 256 / 1,024 / 4,096 GPUs at $30 per GPU-hour,
//                and its worst stall's dollars (lab 06)
//   sweep        per [[sweep]] point: the job's slowdown beside one TCP flow's
//                goodput and resent share on the same link (lab 07)
//   queue        per scenario: step times and retransmits beside the switch
//                queue's drops, marks, pause time and depth, and the
//                neighbour flows' goodput (lab 08)
//   uplinks      per scenario: bytes on all lab links and on each ToR-spine
//                uplink, the hottest uplink and its share (lab 09)
//   alpha_beta   per allreduce scenario: the alpha-beta model fitted to its
//                sweep, then each size's measured time beside the model's
//                and the fastest algorithm there (lab 11)
//
// A table is a function of the scenarios' summaries plus one row in
// table_kinds.cc. Thread safety: immutable table, pure functions.
#pragma once

#include <string>
#include <vector>

#include "runner/report/scenario_summary.h"

namespace fabriclab::runner::report {

// The table's text ("" when no scenario has what it needs).
using TableWriter = std::string (*)(const std::vector<ScenarioSummary>& summaries);

struct TableKind {
  const char* name;  // file stem: charts/<name>.txt
  TableWriter write;
};

// The table named `name`, or null.
const TableKind* find_table(const std::string& name);
std::vector<std::string> table_names();

}  // namespace fabriclab::runner::report
