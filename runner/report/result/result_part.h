// A result part: one thing a scenario measures (its timing, its counters,
// its wire bytes, ...), declared in one file of this folder that names its
// fields (result_field.h) and binds each to where ScenarioResult holds it
// (result_slot.h). The table of parts is result_parts.h.
//
// A part is in every row (`present_when` empty), or only in the rows where
// its leading field has a value (a flow probe's fields only where a probe
// ran): run.json then leaves its fields out rather than writing nulls, as
// recordings/FORMAT.md says of each such part.
//
// A part computes its fields from the scenario's events alone (so a
// recording can be re-summarized anywhere), and those relative to a
// baseline from the two scenarios' rows; summarize_scenario() and
// compute_slowdowns() (scenario_summary.h) run every part in table order.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "runner/report/result/result_field.h"
#include "runner/report/result/result_slot.h"
#include "runner/report/scenario_summary.h"

namespace fabriclab::runner::report {

// What a part computes from: one scenario's events (any order; no other
// scenario's mixed in) and the two views of them several parts share.
// Throws InputError when a field it uses has the wrong type.
struct ScenarioEvents {
  const std::vector<nlohmann::json>& events;
  const WireBytes& wire;
  const RankView& ranks;
};
using ComputePart = void (*)(const ScenarioEvents& in, ScenarioResult& result);
// Sets the part's fields that compare `scenario` with `baseline` (nullptr:
// it has none, or its baseline did not complete), resetting them first.
using RelatePart = void (*)(const ScenarioSummary& scenario, const ScenarioSummary* baseline,
                            ScenarioResult& result);

struct PartField {
  ResultField field;
  FieldSlot slot;
};

struct ResultPart {
  std::string name;          // "timing", "flow_probe", ...
  std::string present_when;  // "" = always; else the field whose value brings the part
  std::vector<PartField> fields;
  ComputePart compute = nullptr;  // nullptr: every field is relative (slowest_of_n)
  RelatePart relate = nullptr;  // nullptr: nothing in it is relative

  // Whether the part belongs in this result's row.
  bool present(const ScenarioResult& result) const;
};

// A part's field declaration, bound to the member that holds it:
// field("wall_s", "s", FieldKind::kNumber, "what it means", &ScenarioResult::wall_s).
template <typename T>
PartField field(std::string name, std::string unit, FieldKind kind, std::string meaning,
                T ScenarioResult::*member) {
  return {{std::move(name), std::move(unit), kind, std::move(meaning), false}, slot(member)};
}

// A per-flow family ("NAME_mbps"): one key per neighbour flow the lab names.
template <typename T>
PartField flow_field(std::string name, std::string unit, FieldKind kind, std::string meaning,
                     T ScenarioResult::*member) {
  return {{std::move(name), std::move(unit), kind, std::move(meaning), true}, slot(member)};
}

}  // namespace fabriclab::runner::report
