#include "runner/grading/value_source.h"

#include <algorithm>
#include <cmath>
#include <regex>
#include <set>

#include "runner/grading/model_size.h"
#include "runner/grading/property.h"
#include "runner/grading/seed_pick.h"

namespace fabriclab::runner::grading {

using nlohmann::json;

namespace {

const std::set<std::string> kResultFields = {
    "wall_s",     "slowdown", "median_step_ms", "p99_step_ms", "comm_share",
    "final_loss", "accuracy", "retransmits",    "drops",       "link_bytes"};
const std::set<std::string> kEvalFields = {"accuracy", "test_loss", "eval_ms"};
const std::set<std::string> kStartFields = {"world_size", "width", "params", "grad_bytes",
                                            "batch",      "steps", "threads"};
const std::set<std::string> kFinalFields = {"steps",      "wall_s",   "samples_per_s",
                                            "final_loss", "accuracy", "comm_ms_total"};
const std::set<std::string> kLabValues = {"params", "grad_bytes", "grad_bytes_bf16",
                                          "ring_bytes_per_rank"};

// A recording path taken apart.
struct Path {
  std::string scenario;  // empty: the lab's first scenario
  std::string what;      // result | status | steps_completed | eval | start | final | ordered_by
  std::string field;
  long step = 0;
};

std::string join(const std::set<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : ", ") + w;
  return out;
}

void require_field(const std::set<std::string>& fields, const std::string& field,
                   const std::string& what) {
  if (!fields.count(field)) {
    throw std::invalid_argument("unknown " + what + " field '" + field + "' (expected one of " +
                                join(fields) + ")");
  }
}

Path parse_path(const std::string& text) {
  static const std::regex kOrdered(R"(scenarios\.ordered_by\.result\.([a-z0-9_]+))");
  static const std::regex kScenario(R"(scenario\.([a-z0-9_-]+)\.(.*))");
  static const std::regex kEval(R"(eval\.([a-z0-9_]+)@step=([0-9]+))");
  static const std::regex kEvent(R"((start|final|result)\.([a-z0-9_]+))");
  std::smatch m;
  Path path;
  if (std::regex_match(text, m, kOrdered)) {
    path.what = "ordered_by";
    path.field = m[1];
    require_field(kResultFields, path.field, "result");
    return path;
  }
  std::string rest = text;
  if (std::regex_match(text, m, kScenario)) {
    path.scenario = m[1];
    rest = m[2];
  }
  if (rest == "status" || rest == "steps_completed") {
    if (path.scenario.empty())
      throw std::invalid_argument("'" + rest + "' needs scenario.NAME. before it");
    path.what = rest;
  } else if (std::regex_match(rest, m, kEval)) {
    path.what = "eval";
    path.field = m[1];
    path.step = std::stol(m[2]);
    require_field(kEvalFields, path.field, "eval");
  } else if (std::regex_match(rest, m, kEvent)) {
    path.what = m[1];
    path.field = m[2];
    if (path.what == "result") {
      if (path.scenario.empty())
        throw std::invalid_argument("'result.' needs scenario.NAME. before it");
      require_field(kResultFields, path.field, "result");
    }
    if (path.what == "start") require_field(kStartFields, path.field, "start");
    if (path.what == "final") require_field(kFinalFields, path.field, "final");
  } else {
    throw std::invalid_argument(
        "recording value '" + text +
        "' is not in the vocabulary (scenario.NAME.result.FIELD, scenario.NAME.status, "
        "scenario.NAME.steps_completed, [scenario.NAME.]eval.FIELD@step=N, "
        "[scenario.NAME.]start.FIELD, [scenario.NAME.]final.FIELD, "
        "scenarios.ordered_by.result.FIELD)");
  }
  return path;
}

std::string scenario_of(const Path& path, const LabSpec& lab) {
  if (!path.scenario.empty()) return path.scenario;
  return lab.scenarios.empty() ? std::string() : lab.scenarios.front();
}

Value number_or_null(const json& value, const std::string& what) {
  Value v;
  if (value.is_null()) return v;
  if (!value.is_number()) throw DeriveError(what + " is not a number in your recording");
  v.type = Value::Type::kNumber;
  v.number = value.get<double>();
  return v;
}

// Rank 0's first event of `type` (and step, for evals) in a scenario.
const json* find_event(const Recording& rec, const std::string& scenario, const std::string& type,
                       long step) {
  for (const json& e : rec.rank_events(scenario, 0)) {
    if (e.value("event", "") != type) continue;
    if (type == "eval" && e.value("step", -1L) != step) continue;
    return &e;
  }
  return nullptr;
}

}  // namespace

PathType validate_recording_path(const std::string& text) {
  const Path path = parse_path(text);
  if (path.what == "status") return PathType::kText;
  if (path.what == "ordered_by") return PathType::kList;
  return PathType::kNumber;
}

void validate_derivation(const Exercise& ex) {
  if (ex.kind == Kind::kProperty) return;
  switch (*ex.from) {
    case Source::kRecording: {
      if (ex.kind == Kind::kChoice) {
        if (!ex.value.empty())
          throw std::invalid_argument(
              "a choice from the recording uses options' `when`, not `value`");
        return;
      }
      if (ex.value.empty()) throw std::invalid_argument("missing key 'value' (the recording path)");
      const PathType type = validate_recording_path(ex.value);
      if (ex.kind == Kind::kNumber && type != PathType::kNumber) {
        throw std::invalid_argument("value '" + ex.value + "' is not a number");
      }
      if (ex.kind == Kind::kOrdering && type != PathType::kList) {
        throw std::invalid_argument(
            "an ordering from the recording needs scenarios.ordered_by.result.FIELD");
      }
      if (ex.kind == Kind::kRank) {
        throw std::invalid_argument(
            "a rank from the recording is not in the vocabulary yet; use from = \"seed\"");
      }
      return;
    }
    case Source::kLab:
      if (ex.kind == Kind::kNumber) {
        if (!kLabValues.count(ex.value)) {
          throw std::invalid_argument("lab value '" + ex.value + "': expected one of " +
                                      join(kLabValues));
        }
      } else if (ex.kind == Kind::kOrdering ? ex.answer_order.empty() : ex.answer.empty()) {
        throw std::invalid_argument("from = \"lab\" needs key 'answer' (the literal answer)");
      }
      return;
    case Source::kSeed:
      if (ex.kind != Kind::kRank)
        throw std::invalid_argument("from = \"seed\" derives a rank only (kind = \"rank\")");
      if (!std::regex_match(ex.value, std::regex("[a-z0-9_]+"))) {
        throw std::invalid_argument(
            "from = \"seed\" needs value = a label [a-z0-9_]+ (e.g. \"slow_rank\")");
      }
      return;
  }
}

std::vector<std::string> path_scenarios(const std::string& text, const LabSpec& lab) {
  const Path path = parse_path(text);
  if (path.what == "ordered_by") return lab.scenarios;
  std::vector<std::string> out = {scenario_of(path, lab)};
  if (path.what == "result" && path.field == "slowdown") {
    const bool has_clean = std::count(lab.scenarios.begin(), lab.scenarios.end(), "clean") > 0;
    const std::string base = has_clean               ? "clean"
                             : lab.scenarios.empty() ? ""
                                                     : lab.scenarios.front();
    if (base != out.front()) out.push_back(base);
  }
  return out;
}

Value evaluate_recording_path(const std::string& text, const LabSpec& lab, const Recording& rec) {
  const Path path = parse_path(text);
  Value v;
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
  const std::string name = scenario_of(path, lab);
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
    return number_or_null(scenario->result[path.field], text);
  }
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

Value derive(const Exercise& ex, const LabSpec& lab, const Recording& rec) {
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
        const double params = static_cast<double>(model_params(lab.model, lab.width));
        v.type = Value::Type::kNumber;
        if (ex.value == "params") v.number = params;
        if (ex.value == "grad_bytes") v.number = params * 4;
        if (ex.value == "grad_bytes_bf16") v.number = params * 2;
        if (ex.value == "ring_bytes_per_rank") {
          v.number = std::round(2.0 * (lab.ranks - 1) / lab.ranks * params * 4);
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

Dependencies dependencies(const Exercise& ex, const LabSpec& lab) {
  Dependencies deps;
  std::vector<std::string> scenarios;
  if (ex.kind == Kind::kProperty) {
    scenarios = check_scenarios(ex.check, lab);
    deps.recording = true;
  } else if (*ex.from == Source::kSeed) {
    deps.recording = true;  // run.json's seed; no scenario's metrics
  } else if (*ex.from == Source::kRecording) {
    deps.recording = true;
    if (ex.kind == Kind::kChoice) {
      for (const ChoiceOption& o : ex.options) {
        if (o.when.empty() || o.when == "otherwise") continue;
        for (auto& s : check_scenarios(o.when, lab)) scenarios.push_back(s);
      }
    } else {
      scenarios = path_scenarios(ex.value, lab);
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
