#include "runner/report/result/result_slot.h"

#include <cmath>

#include "common/input_error.h"

namespace fabriclab::runner::report::slot_detail {
namespace {

using nlohmann::json;

json optional_json(const std::optional<double>& value) { return value ? json(*value) : json(); }

[[noreturn]] void wrong_kind(const std::string& key, const std::string& expected) {
  throw InputError("result: field '" + key + "': expected " + expected);
}

// The number under `key`: nullopt when absent or null.
std::optional<double> optional_number(const json& row, const std::string& key) {
  const auto it = row.find(key);
  if (it == row.end() || it->is_null()) return std::nullopt;
  if (!it->is_number()) wrong_kind(key, "a number or null");
  return it->get<double>();
}

std::optional<std::int64_t> optional_whole(const json& row, const std::string& key) {
  const auto value = optional_number(row, key);
  if (!value) return std::nullopt;
  return static_cast<std::int64_t>(std::llround(*value));
}

bool ends_with(const std::string& key, const std::string& suffix) {
  return key.size() > suffix.size() &&
         key.compare(key.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

void write_value(double value, const ResultField& field, json& row) { row[field.name] = value; }

void write_value(int value, const ResultField& field, json& row) { row[field.name] = value; }

void write_value(const std::optional<double>& value, const ResultField& field, json& row) {
  row[field.name] = optional_json(value);
}

void write_value(const std::optional<std::int64_t>& value, const ResultField& field, json& row) {
  row[field.name] = value ? json(*value) : json();
}

void write_value(const std::optional<int>& value, const ResultField& field, json& row) {
  row[field.name] = value ? json(*value) : json();
}

void write_value(const std::optional<std::string>& value, const ResultField& field, json& row) {
  row[field.name] = value ? json(*value) : json();
}

void write_value(const BytesByName& value, const ResultField& field, json& row) {
  row[field.name] = value;
}

void write_value(const PerFlow& value, const ResultField& field, json& row) {
  for (const auto& [flow, figure] : value) row[flow + field.suffix()] = optional_json(figure);
}

void read_value(const json& row, const ResultField& field, double& value) {
  const auto it = row.find(field.name);
  if (it == row.end() || !it->is_number()) wrong_kind(field.name, "a number");
  value = it->get<double>();
}

void read_value(const json& row, const ResultField& field, int& value) {
  value = static_cast<int>(optional_number(row, field.name).value_or(0));
}

void read_value(const json& row, const ResultField& field, std::optional<double>& value) {
  value = optional_number(row, field.name);
}

void read_value(const json& row, const ResultField& field, std::optional<std::int64_t>& value) {
  value = optional_whole(row, field.name);
}

void read_value(const json& row, const ResultField& field, std::optional<int>& value) {
  const auto whole = optional_whole(row, field.name);
  value = whole ? std::optional<int>(static_cast<int>(*whole)) : std::nullopt;
}

void read_value(const json& row, const ResultField& field, std::optional<std::string>& value) {
  const auto it = row.find(field.name);
  value.reset();
  if (it == row.end() || it->is_null()) return;
  if (!it->is_string()) wrong_kind(field.name, "a name or null");
  value = it->get<std::string>();
}

void read_value(const json& row, const ResultField& field, BytesByName& value) {
  const auto it = row.find(field.name);
  if (it == row.end() || !it->is_object()) return;  // absent without its part
  for (const auto& [name, bytes] : it->items()) {
    if (!bytes.is_number())
      throw InputError("result: " + field.name + "." + name + ": expected a number of bytes");
    value[name] = bytes.get<std::int64_t>();
  }
}

void read_value(const json& row, const ResultField& field, PerFlow& value) {
  const std::string suffix = field.suffix();
  for (const auto& [key, figure] : row.items()) {
    if (ends_with(key, suffix))
      value[key.substr(0, key.size() - suffix.size())] = optional_number(row, key);
  }
}

}  // namespace fabriclab::runner::report::slot_detail
