#include "runner/report/result/result_parts.h"

#include <utility>

#include "common/input_error.h"
#include "runner/report/result/parts.h"

namespace fabriclab::runner::report {

const std::vector<ResultPart>& result_parts() {
  static const std::vector<ResultPart> parts = {
      timing_part(), training_part(),  counters_part(),   wire_bytes_part(),
      ranks_part(),  allreduce_part(), alpha_beta_part(), flow_probe_part(),
      queue_part(),  ecn_part(),       uplinks_part(),    neighbours_part(),
      slowest_of_n_part(), cpu_part(), link_fault_part(),
      uplink_fault_part()};
  return parts;
}

const ResultField* find_result_field(const std::string& key) {
  for (const ResultPart& part : result_parts())
    for (const PartField& f : part.fields)
      if (!f.field.per_flow && f.field.name == key) return &f.field;
  // A flow's figures are named by the lab: match them after every fixed name.
  for (const ResultPart& part : result_parts())
    for (const PartField& f : part.fields)
      if (f.field.per_flow && f.field.names(key)) return &f.field;
  return nullptr;
}

bool ResultPart::present(const ScenarioResult& result) const {
  if (present_when.empty()) return true;
  for (const PartField& f : fields)
    if (f.field.name == present_when) return f.slot.has_value(result);
  return false;
}

namespace {

// The part and field `name` is (a flow's key its family), or nulls.
std::pair<const ResultPart*, const PartField*> find_part_field(const std::string& name) {
  for (const ResultPart& part : result_parts())
    for (const PartField& f : part.fields)
      if (f.field.names(name)) return {&part, &f};
  return {nullptr, nullptr};
}

// The field's value as its slot writes it, its part present or not.
nlohmann::json held_value(const ScenarioResult& result, const PartField& f,
                          const std::string& name) {
  nlohmann::json row = nlohmann::json::object();
  f.slot.write(result, f.field, row);  // a flow's family writes every flow's key
  return row.value(name, nlohmann::json());
}

nlohmann::json held_value(const ScenarioResult& result, const std::string& name) {
  const PartField* f = find_part_field(name).second;
  return f ? held_value(result, *f, name) : nlohmann::json();
}

}  // namespace

nlohmann::json result_value(const ScenarioResult& result, const std::string& name) {
  const auto [part, f] = find_part_field(name);
  if (!f || !part->present(result)) return nullptr;
  return held_value(result, *f, name);
}

std::optional<double> result_number(const ScenarioResult& result, const std::string& name) {
  const nlohmann::json value = held_value(result, name);
  if (!value.is_number()) return std::nullopt;
  return value.get<double>();
}

std::optional<std::int64_t> result_count(const ScenarioResult& result, const std::string& name) {
  const nlohmann::json value = held_value(result, name);
  if (!value.is_number_integer()) return std::nullopt;
  return value.get<std::int64_t>();
}

std::optional<std::string> result_word(const ScenarioResult& result, const std::string& name) {
  const nlohmann::json value = held_value(result, name);
  if (!value.is_string()) return std::nullopt;
  return value.get<std::string>();
}

std::vector<std::string> result_flows(const ScenarioResult& result, const std::string& family) {
  std::vector<std::string> names;
  const PartField* f = find_part_field(family).second;
  if (!f || !f->field.per_flow) return names;
  nlohmann::json row = nlohmann::json::object();
  f->slot.write(result, f->field, row);
  const size_t suffix = f->field.suffix().size();
  for (const auto& [key, figure] : row.items())  // an object's keys: sorted
    names.push_back(key.substr(0, key.size() - suffix));
  return names;
}

nlohmann::json result_row_json(const ScenarioResult& result) {
  nlohmann::json row = nlohmann::json::object();
  for (const ResultPart& part : result_parts()) {
    if (!part.present(result)) continue;
    for (const PartField& f : part.fields) f.slot.write(result, f.field, row);
  }
  return row;
}

ScenarioResult result_from_row_json(const nlohmann::json& row) {
  if (!row.is_object()) throw InputError("result: expected a JSON object");
  ScenarioResult result;
  for (const ResultPart& part : result_parts())
    for (const PartField& f : part.fields) f.slot.read(row, f.field, result);
  return result;
}

}  // namespace fabriclab::runner::report
