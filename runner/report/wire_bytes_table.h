// The `wire_bytes` table (table_kind.h): per scenario with measured
// tx_bytes, the ring's payload per rank and step against what the rank's
// device sent, and the overhead between them (wire_bytes.h defines each).
//
//   scenario  ranks     params        S  2(N-1)/N  ring payload  sent/step  overhead  B/param
//   large-4       4  4,035,910  16.1 MB      1.50      24.2 MB    25.9 MB     +6.9%     6.41
//
// "" when no scenario measured tx_bytes. Pure function.
#pragma once

#include <string>
#include <vector>

#include "runner/report/scenario_summary.h"

namespace fabriclab::runner::report {

std::string format_wire_bytes_table(const std::vector<ScenarioSummary>& summaries);

// "16.1 MB", "980 kB", "1.60 GB", "28 GB", "1.6 TB": decimal units, three
// significant digits at most.
std::string format_bytes(double bytes);

}  // namespace fabriclab::runner::report
