// The scenario's live status line: the step the slowest rank has finished,
// rank 0's loss (or an allreduce sweep's busbw), the step time, the time and
// ETA, the kernel's and the impairments' counters, a queue's marks and
// pauses, the bytes on the links, the hottest uplink, and with 3+ ranks each
// rank's share of its steps spent waiting (the straggler barely waits).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runner/scenario/counter_sample.h"
#include "runner/scenario/rank_state.h"

namespace fabriclab::runner {

// `states` must not be empty.
std::string live_line(const std::string& scenario, const std::vector<RankState>& states,
                      int64_t planned_steps, double elapsed_s, const CounterSample& counters);

}  // namespace fabriclab::runner
