// The `per_rank` table (table_kind.h): for every scenario, each rank's
// median compute and wait, its share of time waiting, what it sent per step
// and how often it was the last to reach the allreduce; then the straggler
// each scenario had, if any (rank_times.h defines every number).
//
//   scenario     rank  compute ms  wait ms  waiting  sent/step  last at barrier
//   slow-worker  r2        1210.4      3.1      0%    510 kB    11/11
//
// "" when no scenario has a step after its first. Pure function.
#pragma once

#include <string>
#include <vector>

#include "runner/report/scenario_summary.h"

namespace fabriclab::runner::report {

std::string format_per_rank_table(const std::vector<ScenarioSummary>& summaries);

}  // namespace fabriclab::runner::report
