// Waiting for a benchmark's rank processes: shared by `bench train` and
// `bench allreduce`, which launch their ranks themselves (no scenario runner,
// no watchdog: a rank that fails or overstays ends the benchmark).
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "runner/process/process.h"

namespace fabriclab::runner::bench {

// The last `max_chars` of a rank's log, for an error message.
std::string tail_of(const std::string& path, size_t max_chars = 1500);

// Polls `ranks` every `poll` until all exited 0. On a failed rank, stops the
// others and throws runtime_error naming it, with the tail of its log
// (`logs[i]` is rank i's). Past `deadline`, stops them all and throws
// runtime_error(`timeout_message`). When `on_stop` is set and a stop signal
// arrived (StopSignals), stops them all and calls it (it is expected to throw).
void wait_for_ranks(std::vector<Process>& ranks, const std::vector<std::string>& logs,
                    std::chrono::steady_clock::time_point deadline,
                    const std::string& timeout_message, std::chrono::milliseconds poll,
                    const std::function<void()>& on_stop = {});

}  // namespace fabriclab::runner::bench
