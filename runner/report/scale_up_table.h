// The `scale_up` table (table_kind.h): the curriculum's "inversion" computed
// from the student's own run. One scenario is the basis -- the one with the
// most ranks, then the largest model, among those that measured
// wire_bytes_per_param (wire_bytes.h) -- and its bytes per parameter are
// scaled to 7B, 70B, 175B and 405B-parameter models in fp32 and bf16:
// the bytes each rank sends per sync, and the seconds that takes over 1 and 8
// NICs of 100, 400 and 800 Gb/s (common/sync_time.h), each marked against the
// 2-5 s a training step may take.
//
// "" when no scenario measured tx_bytes. Pure function.
#pragma once

#include <string>
#include <vector>

#include "runner/report/scenario_summary.h"

namespace fabriclab::runner::report {

std::string format_scale_up_table(const std::vector<ScenarioSummary>& summaries);

// The scenario the table scales from, or null.
const ScenarioSummary* scale_up_basis(const std::vector<ScenarioSummary>& summaries);

}  // namespace fabriclab::runner::report
