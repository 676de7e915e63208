// Lab 06's tables: what the student's own slowdowns cost (wait_cost.h) on a
// cluster of GPUs at a price per GPU-hour, next to what the cluster costs
// idle (the curriculum's table, recomputed at that price). Written after a
// run's summary (`[report] tables = ["cost"]`, at the defaults below) and by
// `fabriclab cost` (runner/cli/cost_command.cc, at the student's settings).
//
//   cluster       per hour, minute and second of N GPUs at the price
//   idle time     per scenario with a slowdown: x its baseline (clean,
//                 usually: slowdown_yardstick.h), ms per step and the
//                 extra over the baseline's, steps per hour, idle seconds
//                 of each GPU-hour
//   dollars       per scenario: the idle time's $ per hour on each cluster,
//                 and its worst stall's $ on each cluster
// Pure functions.
#pragma once

#include <string>
#include <vector>

#include "common/wait_cost.h"
#include "runner/report/scenario_summary.h"

namespace fabriclab::runner::report {

struct CostSettings {
  std::vector<double> gpus = {256, 1024, 4096};
  double usd_per_gpu_hour = kDefaultUsdPerGpuHour;
  std::vector<std::string> scenarios;  // price only these; empty: every one with a slowdown
};

// "$122,880", "$2.13": dollars grouped by thousands, cents below $100.
std::string format_usd(double usd);
// "8,000", "1,220": a count grouped by thousands, no decimals.
std::string format_count(double count);

// The cluster table alone ("" when settings.gpus is empty).
std::string format_cluster_cost(const CostSettings& settings);

// Every table above for the scenarios that have a cost, priced against their
// baselines among `summaries` ("" when none has).
std::string format_cost_table(const std::vector<ScenarioSummary>& summaries,
                              const CostSettings& settings);
// The same at the defaults (the table registry's writer, table_kind.h).
std::string format_cost_table(const std::vector<ScenarioSummary>& summaries);

}  // namespace fabriclab::runner::report
