// The table of result parts: every field a scenario's result row can hold,
// in one list (result_parts.cc), and the row's one JSON conversion by those
// declarations. A new measured field is one line in a part file (or a new
// part file and its row in the table), its test and its line in
// recordings/FORMAT.md, which result_parts_format_test.cc checks.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runner/report/result/result_part.h"

namespace fabriclab::runner::report {

// Every part, in the order run.json's readers meet them. Built once;
// thread-safe to read.
const std::vector<ResultPart>& result_parts();

// The field a run.json result key is (a per-flow key "victim_mbps" is the
// family "NAME_mbps"), or nullptr when no part declares it.
const ResultField* find_result_field(const std::string& key);

// One field's value by name, as run.json's `result` holds it: a number
// (an integer for counts and ranks), a name, an object of bytes, or null
// when it is unknown, its part is not in this row or no part declares it.
// A flow's figure by its key ("victim_mbps"). For tables and charts that
// pick their columns by name.
nlohmann::json result_value(const ScenarioResult& result, const std::string& name);

// The row as run.json's `result`: every present part's fields.
nlohmann::json result_row_json(const ScenarioResult& result);
// And back; throws InputError "result: ..." on a value of the wrong kind.
ScenarioResult result_from_row_json(const nlohmann::json& row);

}  // namespace fabriclab::runner::report
