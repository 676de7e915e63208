// The table of result parts: every field a scenario's result row can hold,
// in one list (result_parts.cc), and the row's one JSON conversion by those
// declarations. A new measured field is one line in a part file (or a new
// part file and its row in the table), its test and its line in
// recordings/FORMAT.md, which result_parts_format_test.cc checks.
#pragma once

#include <cstdint>
#include <optional>
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

// The same, typed, for the report's tables, charts and page, which pick
// their columns and series by name: nullopt when the field has no value
// (unknown, not of that type, or no part declares it). These read the value
// the row holds, whether or not run.json writes its part: the one field that
// differs is step_slowdown, held without a flow probe, which the sweep table
// shows and run.json leaves out with the probe's other fields.
// result_number: any figure (a count or rank too); result_count: a count or
// rank, as an integer; result_word: a name (hot_uplink).
std::optional<double> result_number(const ScenarioResult& result, const std::string& name);
std::optional<std::int64_t> result_count(const ScenarioResult& result, const std::string& name);
std::optional<std::string> result_word(const ScenarioResult& result, const std::string& name);
// The names a per-flow family holds in this row, sorted: "NAME_mbps" ->
// {"noisy", "victim"}; each one's figure is result_number(NAME + suffix).
std::vector<std::string> result_flows(const ScenarioResult& result, const std::string& family);

// The row as run.json's `result`: every present part's fields.
nlohmann::json result_row_json(const ScenarioResult& result);
// And back; throws InputError "result: ..." on a value of the wrong kind.
ScenarioResult result_from_row_json(const nlohmann::json& row);

}  // namespace fabriclab::runner::report
