// The uplink table (lab 09): per scenario, what its placement put on the
// fabric -- median and p99 step time, the bytes all lab links carried (a
// byte counted once per link it crossed), the bytes each ToR-spine uplink
// carried (both directions, read at the ToR), the hottest uplink and its
// share, and each neighbour flow's goodput. A fabric's own per-port byte
// counters (an `show interfaces counters` on each leaf's uplinks) are the
// same columns.
//
// "" when no scenario ran on a fabric with uplinks. Pure, thread-safe.
#pragma once

#include <string>
#include <vector>

#include "runner/report/scenario_summary.h"

namespace fabriclab::runner::report {

std::string format_uplink_table(const std::vector<ScenarioSummary>& summaries);

}  // namespace fabriclab::runner::report
