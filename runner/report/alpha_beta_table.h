// The `alpha_beta` table (table_kind.h, lab 11): per allreduce scenario
// whose start event names its algorithm, the alpha-beta model fitted to its
// own sweep (alpha_beta_fit.h):
//   scenario  algorithm  steps  alpha ms  alpha x steps ms  busbw GB/s  crossover  worst err
// then every size with each scenario's measured time beside the model's
// (out-of-place, mean over ranks, ms) and a * on the fastest measured at
// that size: which algorithm a library should have picked there.
#pragma once

#include <string>
#include <vector>

#include "runner/report/scenario_summary.h"

namespace fabriclab::runner::report {

// "1.5 MiB", "64 KiB", "512 B": a size as the table shows it.
std::string format_size(double bytes);

// "" when no scenario has a fit.
std::string format_alpha_beta_table(const std::vector<ScenarioSummary>& summaries);

}  // namespace fabriclab::runner::report
