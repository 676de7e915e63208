// The ports table (lab 12): per scenario with a switch queue, one row per
// port -- the port toward rank N, what a real switch's per-port counters
// show (`ethtool -S` on its side, or the switch CLI): packets in, CE marks,
// how often it passed XOFF and paused the links feeding it, for how long,
// and the depth arriving packets found. The queue table sums the ports; this
// one says which port paused, so which sender it held: in a ring every port
// is fed by one rank's gradient chunks.
//
// "" when no scenario had a queue. Pure, thread-safe.
#pragma once

#include <string>
#include <vector>

#include "runner/report/scenario_summary.h"

namespace fabriclab::runner::report {

std::string format_port_table(const std::vector<ScenarioSummary>& summaries);

}  // namespace fabriclab::runner::report
