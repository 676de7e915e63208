// Where a declared field lives in ScenarioResult, and its one JSON
// conversion by kind. A part binds each of its fields to a member
// (`slot(&ScenarioResult::wall_s)`); to_json/from_json of the result row
// then walk the parts' fields instead of spelling each field twice.
//
// The conversion follows the member's type, as recordings/FORMAT.md says:
// double and int are always written (an int read absent is 0, a double read
// absent is an error); optionals are null when unknown; counts and ranks
// are integers in JSON; a name is a string; bytes by name an object;
// a per-flow map one key per flow, NAME + the field's suffix.
// Reading throws InputError "result: field 'KEY': expected ..." on a value
// of the wrong kind; unknown keys are for other fields and are left alone.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "runner/report/result/result_field.h"
#include "runner/report/scenario_summary.h"

namespace fabriclab::runner::report {

struct FieldSlot {
  std::function<void(const ScenarioResult&, const ResultField&, nlohmann::json& row)> write;
  std::function<void(const nlohmann::json& row, const ResultField&, ScenarioResult&)> read;
  std::function<bool(const ScenarioResult&)> has_value;
};

namespace slot_detail {

using PerFlow = std::map<std::string, std::optional<double>>;
using BytesByName = std::map<std::string, std::int64_t>;

void write_value(double value, const ResultField& field, nlohmann::json& row);
void write_value(int value, const ResultField& field, nlohmann::json& row);
void write_value(const std::optional<double>& value, const ResultField& field, nlohmann::json& row);
void write_value(const std::optional<std::int64_t>& value, const ResultField& field,
                 nlohmann::json& row);
void write_value(const std::optional<int>& value, const ResultField& field, nlohmann::json& row);
void write_value(const std::optional<std::string>& value, const ResultField& field,
                 nlohmann::json& row);
void write_value(const BytesByName& value, const ResultField& field, nlohmann::json& row);
void write_value(const PerFlow& value, const ResultField& field, nlohmann::json& row);

void read_value(const nlohmann::json& row, const ResultField& field, double& value);
void read_value(const nlohmann::json& row, const ResultField& field, int& value);
void read_value(const nlohmann::json& row, const ResultField& field, std::optional<double>& value);
void read_value(const nlohmann::json& row, const ResultField& field,
                std::optional<std::int64_t>& value);
void read_value(const nlohmann::json& row, const ResultField& field, std::optional<int>& value);
void read_value(const nlohmann::json& row, const ResultField& field,
                std::optional<std::string>& value);
void read_value(const nlohmann::json& row, const ResultField& field, BytesByName& value);
void read_value(const nlohmann::json& row, const ResultField& field, PerFlow& value);

template <typename T>
bool holds(const T&) {
  return true;
}
template <typename T>
bool holds(const std::optional<T>& value) {
  return value.has_value();
}
template <typename K, typename V>
bool holds(const std::map<K, V>& value) {
  return !value.empty();
}

}  // namespace slot_detail

template <typename T>
FieldSlot slot(T ScenarioResult::*member) {
  return {[member](const ScenarioResult& result, const ResultField& field, nlohmann::json& row) {
            slot_detail::write_value(result.*member, field, row);
          },
          [member](const nlohmann::json& row, const ResultField& field, ScenarioResult& result) {
            slot_detail::read_value(row, field, result.*member);
          },
          [member](const ScenarioResult& result) { return slot_detail::holds(result.*member); }};
}

}  // namespace fabriclab::runner::report
