#include "runner/grading/value_source.h"

#include <algorithm>
#include <cmath>
#include <regex>
#include <set>

#include "common/input_error.h"
#include "common/sweep_crossing.h"
#include "common/sync_time.h"
#include "common/wait_cost.h"
#include "runner/grading/property.h"
#include "runner/lab/answer_vocabulary.h"
#include "runner/lab/scenario_paths.h"
#include "runner/lab/seed_pick.h"
#include "runner/report/wait_cost.h"

namespace fabriclab::runner::grading {

using nlohmann::json;

namespace {

Value number_or_null(const json& value, const std::string& what) {
  Value v;
  if (value.is_null()) return v;
  if (!value.is_number()) throw DeriveError(what + " is not a number in your recording");
  v.type = Value::Type::kNumber;
  v.number = value.get<double>();
  return v;
}

// Rank 0's first event of `type` (and step, for evals) in a scenario.
const json* find_event(const GradedRun& rec, const std::string& scenario, const std::string& type,
                       long step) {
  for (const json& e : rec.rank_events(scenario, 0)) {
    if (e.value("event", "") != type) continue;
    if (type == "eval" && e.value("step", -1L) != step) continue;
    return &e;
  }
  return nullptr;
}

// A recorded result as the report reads it (scenario_summary.h's from_json).
report::ScenarioResult recorded_result(const RecordedScenario& scenario) {
  report::ScenarioResult result;
  try {
    from_json(scenario.result, result);
  } catch (const InputError& e) {
    throw DeriveError("your recording's scenario '" + scenario.name + "': " + e.what());
  }
  return result;
}

// A `cost` path: what the scenario's slowdown against its baseline costs
// (runner/report/wait_cost.h), in dollars when the path names a cluster.
Value cost_value(const RecordingPath& path, const GradedRun& rec,
                 const RecordedScenario& scenario) {
  const std::string baseline_name = scenario.baseline.value_or("clean");
  const RecordedScenario* baseline = rec.scenario(baseline_name);
  if (baseline_name.empty() || !baseline) {
    throw DeriveError("your recording's scenario '" + scenario.name +
                      "' has no baseline to measure its cost against");
  }
  const auto cost = report::wait_cost(recorded_result(scenario), recorded_result(*baseline));
  if (!cost) {
    throw DeriveError("your recording's scenario '" + scenario.name +
                      "' has no slowdown to price (did it and " + baseline_name + " complete?)");
  }
  Value v;
  v.type = Value::Type::kNumber;
  if (path.field == "extra_ms") v.number = cost->extra_ms;
  if (path.field == "steps_per_hour") v.number = cost->steps_per_hour;
  if (path.field == "idle_s_per_gpu_hour") v.number = cost->idle_s_per_gpu_hour;
  if (path.field == "idle_usd_per_hour") {
    v.number = idle_usd_per_hour(cost->idle_s_per_gpu_hour, path.gpus, path.usd_per_gpu_hour);
  }
  if (path.field == "stall_ms" || path.field == "stall_usd") {
    if (!cost->stall_ms) {
      throw DeriveError("your recording's scenario '" + scenario.name +
                        "' has no longest step (fewer than two steps?)");
    }
    v.number = path.field == "stall_ms"
                   ? *cost->stall_ms
                   : stall_usd(*cost->stall_ms / 1000, path.gpus, path.usd_per_gpu_hour);
  }
  return v;
}

// The sweep's points from the lab (sweep.h: each carries its value), their
// FIELD from the recording; points without it (a stalled point's slowdown)
// are left out, never guessed.
Value sweep_crossing(const RecordingPath& path, const LabDefinition& lab, const GradedRun& rec) {
  std::vector<std::pair<double, double>> points;
  size_t swept = 0;
  for (const ScenarioDefinition& s : lab.scenarios) {
    if (s.sweep != path.sweep) continue;
    ++swept;
    const RecordedScenario* scenario = rec.scenario(s.name);
    if (!scenario) throw DeriveError("your recording has no scenario '" + s.name + "'");
    const json field =
        scenario->result.is_object() ? scenario->result.value(path.field, json()) : json();
    if (field.is_number()) points.emplace_back(s.sweep_value, field.get<double>());
  }
  Value v;  // null: the curve never reaches the level (answer "none")
  if (const auto x = first_crossing(points, path.level)) {
    v.type = Value::Type::kNumber;
    v.number = *x;
  } else {
    v.beyond_sweep = !points.empty() && points.size() == swept;
  }
  return v;
}

}  // namespace

Value evaluate_recording_path(const std::string& text, const LabDefinition& lab,
                              const GradedRun& rec) {
  if (const auto ratio = parse_path_ratio(text)) {
    const Value top = evaluate_recording_path(ratio->numerator, lab, rec);
    Value bottom;
    if (const auto divisor = literal_number(ratio->denominator)) {
      bottom.type = Value::Type::kNumber;
      bottom.number = *divisor;
    } else {
      bottom = evaluate_recording_path(ratio->denominator, lab, rec);
    }
    Value v;  // null when either has no number (a stalled scenario's) or the divisor is 0
    if (top.type == Value::Type::kNumber && bottom.type == Value::Type::kNumber &&
        bottom.number != 0) {
      v.type = Value::Type::kNumber;
      v.number = top.number / (ratio->scale * bottom.number);
    }
    return v;
  }
  const RecordingPath path = parse_recording_path(text);
  Value v;
  if (path.what == "conditions") {
    // The lab was loaded with the recording's conditions (lab_for_run(), graded_run.h).
    const auto number = lab.condition_number(path.field);
    if (!number) throw DeriveError("the lab draws no number called '" + path.field + "'");
    v.type = Value::Type::kNumber;
    v.number = *number;
    return v;
  }
  if (path.what == "ordered_by") {
    std::vector<std::pair<double, std::string>> rows;
    for (const RecordedScenario& s : rec.scenarios) {
      const json field = s.result.is_object() ? s.result.value(path.field, json()) : json();
      rows.emplace_back(field.is_number() ? field.get<double>() : INFINITY, s.name);
    }
    std::stable_sort(rows.begin(), rows.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    v.type = Value::Type::kList;
    for (const auto& row : rows) v.list.push_back(row.second);
    return v;
  }
  if (path.what == "reaches") return sweep_crossing(path, lab, rec);
  const std::string name = path_scenario(path, lab.scenario_names());
  const RecordedScenario* scenario = rec.scenario(name);
  if (!scenario) throw DeriveError("your recording has no scenario '" + name + "'");
  if (path.what == "status") {
    v.type = Value::Type::kText;
    v.text = scenario->status ? rundir::to_string(*scenario->status) : std::string();
    return v;
  }
  if (path.what == "steps_completed") return number_or_null(scenario->steps_completed, text);
  if (path.what == "result") {
    if (!scenario->result.is_object() || !scenario->result.contains(path.field)) {
      throw DeriveError("your recording's scenario '" + name + "' has no result." + path.field);
    }
    const json& field = scenario->result[path.field];
    if (field.is_string()) {  // a word: result.hot_uplink
      v.type = Value::Type::kText;
      v.text = field.get<std::string>();
      return v;
    }
    return number_or_null(field, text);
  }
  if (path.what == "rdma") {  // null when nothing was lost (resent_per_lost)
    if (!scenario->rdma.is_object() || !scenario->rdma.contains(path.field))
      throw DeriveError("your recording's scenario '" + name + "' has no rdma." + path.field +
                        " (it ran no RoCE workload)");
    return number_or_null(scenario->rdma[path.field], text);
  }
  if (path.what == "sync_s") {
    const json per_param = scenario->result.is_object()
                               ? scenario->result.value("wire_bytes_per_param", json())
                               : json();
    if (!per_param.is_number()) {
      throw DeriveError("your recording's scenario '" + name +
                        "' has no result.wire_bytes_per_param (no tx_bytes were measured)");
    }
    v.type = Value::Type::kNumber;
    v.number = sync_seconds(path.params, per_param.get<double>(), path.dtype, path.gbps, path.nics);
    return v;
  }
  if (path.what == "cost") return cost_value(path, rec, *scenario);
  const json* event = find_event(rec, name, path.what, path.step);
  if (!event) {
    throw DeriveError(
        path.what == "eval"
            ? "your recording has no evaluation after step " + std::to_string(path.step) +
                  " in scenario '" + name + "' (was eval_every changed?)"
            : "your recording has no " + path.what + " event in scenario '" + name + "'");
  }
  if (!event->contains(path.field)) {
    throw DeriveError("your recording's " + path.what + " event in scenario '" + name +
                      "' has no " + path.field);
  }
  return number_or_null((*event)[path.field], text);
}

Value derive(const Exercise& ex, const LabDefinition& lab, const GradedRun& rec) {
  Value v;
  switch (*ex.from) {
    case Source::kRecording:
      if (ex.kind == Kind::kChoice) {
        // Every option whose check holds is right (two scenarios may both
        // have stalled); "otherwise" only when none held.
        v.type = Value::Type::kList;
        for (const ChoiceOption& option : ex.options) {
          if (option.when.empty()) continue;
          if (option.when == "otherwise" ? v.list.empty() : check_holds(option.when, lab, rec)) {
            v.list.push_back(option.key);
          }
        }
        if (v.list.empty()) throw DeriveError("no option of this question fits your recording");
        return v;
      }
      return evaluate_recording_path(ex.value, lab, rec);
    case Source::kLab:
      if (ex.kind == Kind::kNumber) {
        const double params = static_cast<double>(lab_model_params(lab));
        v.type = Value::Type::kNumber;
        if (ex.value == "params") v.number = params;
        if (ex.value == "grad_bytes") v.number = params * 4;
        if (ex.value == "grad_bytes_bf16") v.number = params * 2;
        if (ex.value == "ring_bytes_per_rank") {
          v.number = std::round(2.0 * (lab.ranks - 1) / lab.ranks * params * 4);
        }
        if (const auto hops = parse_hops_query(ex.value)) {
          const ScenarioDefinition* scenario = nullptr;
          for (const ScenarioDefinition& s : lab.scenarios)
            if (s.name == hops->scenario) scenario = &s;
          if (!scenario) throw DeriveError("the lab has no scenario '" + hops->scenario + "'");
          try {
            v.number = job_rank_path(lab, *scenario, hops->from, hops->to).switches;
          } catch (const std::invalid_argument& e) {
            throw DeriveError(e.what());
          }
        }
        if (const auto what_if = parse_what_if_cost(ex.value)) {
          v.number = what_if->what == "stall_usd"
                         ? stall_usd(what_if->stall_s, what_if->gpus, what_if->usd_per_gpu_hour)
                         : idle_usd_per_hour(idle_seconds_per_gpu_hour(what_if->extra_ms / 1000,
                                                                       what_if->steps_per_hour),
                                             what_if->gpus, what_if->usd_per_gpu_hour);
        }
      } else if (ex.kind == Kind::kOrdering) {
        v.type = Value::Type::kList;
        v.list = ex.answer_order;
      } else {
        v.type = Value::Type::kText;
        v.text = ex.answer;
      }
      return v;
    case Source::kSeed: {
      if (!rec.seed) throw DeriveError("your recording's run.json has no seed");
      const long ranks = rec.ranks > 0 ? rec.ranks : lab.ranks;
      v.type = Value::Type::kText;
      v.text = "r" + std::to_string(seed_pick(*rec.seed, ex.value, static_cast<uint64_t>(ranks)));
      return v;
    }
  }
  return v;
}

Dependencies dependencies(const Exercise& ex, const LabDefinition& lab) {
  Dependencies deps;
  std::vector<std::string> scenarios;
  if (ex.kind == Kind::kProperty) {
    scenarios = check_scenarios(ex.check, lab.scenario_names());
    deps.recording = true;
  } else if (*ex.from == Source::kSeed) {
    deps.recording = true;  // run.json's seed; no scenario's metrics
  } else if (*ex.from == Source::kRecording) {
    deps.recording = true;
    if (ex.kind == Kind::kChoice) {
      for (const ChoiceOption& o : ex.options) {
        if (o.when.empty() || o.when == "otherwise") continue;
        for (auto& s : check_scenarios(o.when, lab.scenario_names())) scenarios.push_back(s);
      }
    } else {
      scenarios = path_scenarios(ex.value, lab.scenario_names());
    }
  }
  for (const auto& s : scenarios) {
    if (std::find(deps.scenarios.begin(), deps.scenarios.end(), s) == deps.scenarios.end()) {
      deps.scenarios.push_back(s);
    }
  }
  return deps;
}

}  // namespace fabriclab::runner::grading
