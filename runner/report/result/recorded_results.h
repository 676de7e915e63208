// run.json's `result` rows checked against the parts' declarations
// (result_parts.h), for the readers of recordings: the report
// (run_directory.h) and the grader (runner/grading/recording.h). The run
// reader (runner/rundir/run_reader.h) only checks that a row is an object:
// which of its fields are figures and which are names is the parts' to say,
// and rundir/ may not see report/.
//
// The rule, as recordings/FORMAT.md gives it: a field a part declares as a
// figure (kNumber, kCount, kRank, a flow's figure) is a number or null, as
// is a key no part declares (a newer fabriclab's field, a figure too until
// it is declared); a name (hot_uplink) or bytes by name (uplinks) is left
// to result_from_row_json(), which reads each by its kind.
// Pure functions, thread-safe.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "runner/rundir/run_reader.h"

namespace fabriclab::runner::report {

// The first key of `row` (a `result` object) whose value the rule refuses,
// in the row's order; nullopt when it has none.
std::optional<std::string> misfit_result_key(const nlohmann::json& row);

// Every scenario's row of `run`; throws InputError at the value's line:
// "DIR/run.json:12: scenario 'clean': field 'result.wall_s': expected a
// number or null, got "fast"".
void check_recorded_results(const rundir::RunDirectory& run);

}  // namespace fabriclab::runner::report
