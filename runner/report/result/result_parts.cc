#include "runner/report/result/result_parts.h"

#include "common/input_error.h"
#include "runner/report/result/parts.h"

namespace fabriclab::runner::report {

const std::vector<ResultPart>& result_parts() {
  static const std::vector<ResultPart> parts = {
      timing_part(), training_part(),  counters_part(),   wire_bytes_part(),
      ranks_part(),  allreduce_part(), flow_probe_part(), queue_part(),
      ecn_part(),    uplinks_part(),   neighbours_part()};
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

nlohmann::json result_value(const ScenarioResult& result, const std::string& name) {
  for (const ResultPart& part : result_parts()) {
    for (const PartField& f : part.fields) {
      if (!f.field.names(name)) continue;
      if (!part.present(result)) return nullptr;
      nlohmann::json row = nlohmann::json::object();
      f.slot.write(result, f.field, row);  // a flow's family writes every flow's key
      return row.value(name, nlohmann::json());
    }
  }
  return nullptr;
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
