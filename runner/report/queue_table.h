// The queue table (lab 08): per scenario, what the job paid -- median and
// p99 step time, TCP retransmissions -- beside what the switch's queue did:
// packets dropped, CE-marked, time it held its upstream links paused, the
// depth arriving packets found (p50/p99/max) -- the receivers' kernels' CE
// counters and each neighbour flow's goodput. A switch's own counters on a
// real fabric (drops, ECN marks, PFC pause frames and pause duration,
// buffer occupancy) are the same columns.
//
// "" when no scenario had a queue. Pure, thread-safe.
#pragma once

#include <string>
#include <vector>

#include "runner/report/scenario_summary.h"

namespace fabriclab::runner::report {

std::string format_queue_table(const std::vector<ScenarioSummary>& summaries);

}  // namespace fabriclab::runner::report
