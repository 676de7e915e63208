// The slowest-of-N table (lab 10): per scenario, the job's ranks N, its
// median and p99 step time, and where one delay draw was on every link the
// per-frame figures beside it -- the mean delay, the mean of the largest of
// N draws (slowest_link.h) -- and the median step each predicts from the
// baseline's: baseline + 2(N-1) x the slowest link (each ring phase waits
// for its slowest link) and the same with the mean; then measured /
// predicted. "" when no scenario had such a delay. Pure, thread-safe.
#pragma once

#include <string>
#include <vector>

#include "runner/report/scenario_summary.h"

namespace fabriclab::runner::report {

std::string format_slowest_of_n_table(const std::vector<ScenarioSummary>& summaries);

}  // namespace fabriclab::runner::report
