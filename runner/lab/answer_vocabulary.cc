#include "runner/lab/answer_vocabulary.h"

#include <algorithm>
#include <regex>

#include "runner/report/result/result_parts.h"
#include "runner/rundir/run_format.h"

namespace fabriclab::runner {

namespace {

const std::set<std::string> kEvalFields = {"accuracy", "test_loss", "eval_ms"};
const std::set<std::string> kStartFields = {"world_size", "width", "params", "grad_bytes",
                                            "batch",      "steps", "threads"};
const std::set<std::string> kFinalFields = {"steps",      "wall_s",   "samples_per_s",
                                            "final_loss", "accuracy", "comm_ms_total",
                                            "avg_busbw",  "wrong"};
// run.json's scenario `rdma`: a RoCE run's rxe counters (recordings/FORMAT.md).
const std::set<std::string> kRdmaFields = {"sent_pkts",    "rcvd_pkts",   "lost_pkts",
                                           "naks",         "ack_timeouts", "resent_pkts",
                                           "resent_per_lost"};

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

// A result field a part declares (runner/report/result/), or a neighbour
// flow's (NAME_mbps, NAME_rtt_ms: the flow's name is the lab's, so any name
// fits here; the grader says when a recording has no such flow). Bytes by
// name (`uplinks`) are for tables: an answer is one figure or one word.
std::set<std::string> answerable_result_fields() {
  std::set<std::string> out;
  for (const report::ResultPart& part : report::result_parts())
    for (const report::PartField& f : part.fields)
      if (!f.field.per_flow && f.field.kind != report::FieldKind::kBytesByName)
        out.insert(f.field.name);
  return out;
}

void require_result_field(const std::string& field) {
  static const std::set<std::string> kAnswerable = answerable_result_fields();
  static const std::regex kFlowName("[a-z][a-z0-9_]*");
  const report::ResultField* declared = report::find_result_field(field);
  if (declared && declared->per_flow &&
      std::regex_match(field.substr(0, field.size() - declared->suffix().size()), kFlowName))
    return;
  require_field(kAnswerable, field, "result");
}

bool has_scenario(const ScenarioNames& scenarios, const std::string& name) {
  return std::find(scenarios.begin(), scenarios.end(), name) != scenarios.end();
}

// "the lab has no scenario 'nope' (expected one of: clean, slow)": the
// names that would have been right, not only the one that was wrong.
std::string no_scenario(const std::string& name, const ScenarioNames& scenarios) {
  std::string known;
  for (const auto& s : scenarios) known += (known.empty() ? "" : ", ") + std::string(s);
  return "the lab has no scenario '" + name + "' (expected one of: " + known + ")";
}

// "stalled|deadline" -> {"stalled", "deadline"}.
std::vector<std::string> split_alternatives(const std::string& alternatives) {
  std::vector<std::string> out;
  size_t begin = 0;
  while (true) {
    const size_t bar = alternatives.find('|', begin);
    out.push_back(alternatives.substr(begin, bar - begin));
    if (bar == std::string::npos) return out;
    begin = bar + 1;
  }
}

}  // namespace

RecordingPath parse_recording_path(const std::string& text) {
  static const std::regex kOrdered(R"(scenarios\.ordered_by\.result\.([a-z0-9_]+))");
  static const std::regex kScenario(R"(scenario\.([a-z0-9_-]+)\.(.*))");
  static const std::regex kEval(R"(eval\.([a-z0-9_]+)@step=([0-9]+))");
  static const std::regex kEvent(R"((start|final|result)\.([a-z0-9_]+))");
  static const std::regex kRdma(R"(rdma\.([a-z0-9_]+))");
  static const std::regex kSync(
      R"(sync_s@params=([0-9.]+(?:e[0-9]+)?),dtype=(fp32|bf16),gbps=([0-9.]+),nics=([0-9]+))");
  static const std::regex kCost(R"((idle_s_per_gpu_hour|extra_ms|steps_per_hour|stall_ms))");
  static const std::regex kCostUsd(
      R"((idle_usd_per_hour|stall_usd)@gpus=([0-9]+(?:\.[0-9]+)?),usd=([0-9]+(?:\.[0-9]+)?))");
  static const std::regex kReaches(
      R"(sweep\.([a-z0-9_]+)\.result\.([a-z0-9_]+)@reaches=([0-9]+(?:\.[0-9]+)?))");
  static const std::regex kCondition(R"(conditions\.([a-z][a-z0-9_]*))");
  std::smatch m;
  RecordingPath path;
  if (std::regex_match(text, m, kCondition)) {  // the lab checks the name (lab_definition.cc)
    path.what = "conditions";
    path.field = m[1];
    return path;
  }
  if (std::regex_match(text, m, kReaches)) {
    path.what = "reaches";
    path.sweep = m[1];
    path.field = m[2];
    path.level = std::stod(m[3]);
    require_result_field(path.field);
    return path;
  }
  if (std::regex_match(text, m, kOrdered)) {
    path.what = "ordered_by";
    path.field = m[1];
    require_result_field(path.field);
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
  } else if (std::regex_match(rest, m, kSync)) {
    path.what = "sync_s";
    path.params = std::stod(m[1]);
    path.dtype = m[2];
    path.gbps = std::stod(m[3]);
    path.nics = std::stoi(m[4]);
    if (path.params <= 0 || path.gbps <= 0 || path.nics <= 0)
      throw std::invalid_argument("sync_s@...: params, gbps and nics must be above 0");
  } else if (std::regex_match(rest, m, kCost)) {
    path.what = "cost";
    path.field = m[1];
  } else if (std::regex_match(rest, m, kCostUsd)) {
    path.what = "cost";
    path.field = m[1];
    path.gpus = std::stod(m[2]);
    path.usd_per_gpu_hour = std::stod(m[3]);
    if (path.gpus <= 0 || path.usd_per_gpu_hour <= 0)
      throw std::invalid_argument(path.field + "@...: gpus and usd must be above 0");
  } else if (std::regex_match(rest, m, kRdma)) {  // run.json's `rdma` (rdma_summary.h)
    if (path.scenario.empty())
      throw std::invalid_argument("'rdma.' needs scenario.NAME. before it");
    path.what = "rdma";
    path.field = m[1];
    require_field(kRdmaFields, path.field, "rdma");
  } else if (std::regex_match(rest, m, kEvent)) {
    path.what = m[1];
    path.field = m[2];
    if (path.what == "result") {
      if (path.scenario.empty())
        throw std::invalid_argument("'result.' needs scenario.NAME. before it");
      require_result_field(path.field);
    }
    if (path.what == "start") require_field(kStartFields, path.field, "start");
    if (path.what == "final") require_field(kFinalFields, path.field, "final");
  } else {
    throw std::invalid_argument(
        "recording value '" + text +
        "' is not in the vocabulary (scenario.NAME.result.FIELD, scenario.NAME.status, "
        "scenario.NAME.steps_completed, [scenario.NAME.]eval.FIELD@step=N, "
        "[scenario.NAME.]start.FIELD, [scenario.NAME.]final.FIELD, scenario.NAME.rdma.FIELD, "
        "scenarios.ordered_by.result.FIELD, sweep.NAME.result.FIELD@reaches=L, "
        "[scenario.NAME.]sync_s@params=P,dtype=fp32|bf16,gbps=G,nics=K, "
        "[scenario.NAME.]idle_s_per_gpu_hour|extra_ms|steps_per_hour|stall_ms, "
        "[scenario.NAME.]idle_usd_per_hour|stall_usd@gpus=N,usd=P, conditions.NAME, "
        "PATH / [K x] PATH)");
  }
  return path;
}

std::optional<PathRatio> parse_path_ratio(const std::string& text) {
  static const std::regex kRatio(R"((\S+) / (([0-9]+(\.[0-9]+)?) x )?(\S+))");
  std::smatch m;
  if (!std::regex_match(text, m, kRatio)) return std::nullopt;
  PathRatio ratio{m[1], m[3].matched ? std::stod(m[3]) : 1.0, m[5]};
  if (ratio.scale <= 0) throw std::invalid_argument("'" + text + "': expected K > 0 in 'K x PATH'");
  return ratio;
}

std::optional<double> literal_number(const std::string& text) {
  static const std::regex kNumber(R"([0-9]+(\.[0-9]+)?)");
  if (!std::regex_match(text, kNumber)) return std::nullopt;
  return std::stod(text);
}

PathType validate_recording_path(const std::string& text) {
  if (const auto ratio = parse_path_ratio(text)) {
    if (validate_recording_path(ratio->numerator) != PathType::kNumber)
      throw std::invalid_argument("'" + text + "': '" + ratio->numerator + "' is not a number");
    if (const auto divisor = literal_number(ratio->denominator)) {
      if (*divisor <= 0) throw std::invalid_argument("'" + text + "': expected a divisor above 0");
      return PathType::kNumber;
    }
    for (const std::string& part : {ratio->denominator})
      if (validate_recording_path(part) != PathType::kNumber)
        throw std::invalid_argument("'" + text + "': '" + part + "' is not a number");
    return PathType::kNumber;
  }
  const RecordingPath path = parse_recording_path(text);
  if (path.what == "status") return PathType::kText;
  if (path.what == "ordered_by") return PathType::kList;
  return PathType::kNumber;
}

std::string path_scenario(const RecordingPath& path, const ScenarioNames& scenarios) {
  if (!path.scenario.empty()) return path.scenario;
  return scenarios.empty() ? std::string() : scenarios.front();
}

ScenarioNames path_scenarios(const std::string& text, const ScenarioNames& scenarios) {
  if (const auto ratio = parse_path_ratio(text)) {
    ScenarioNames out = path_scenarios(ratio->numerator, scenarios);
    if (literal_number(ratio->denominator)) return out;
    for (const std::string& s : path_scenarios(ratio->denominator, scenarios))
      if (!has_scenario(out, s)) out.push_back(s);
    return out;
  }
  const RecordingPath path = parse_recording_path(text);
  if (path.what == "conditions") return {};
  if (path.what == "ordered_by") return scenarios;
  if (path.what == "reaches") return sweep_scenarios(path.sweep, scenarios);
  ScenarioNames out = {path_scenario(path, scenarios)};
  if ((path.what == "result" && (path.field == "slowdown" || path.field == "busbw_ratio")) ||
      path.what == "cost") {
    const std::string base = has_scenario(scenarios, "clean") ? "clean"
                             : scenarios.empty()              ? ""
                                                              : scenarios.front();
    if (base != out.front()) out.push_back(base);
  }
  return out;
}

ScenarioNames sweep_scenarios(const std::string& sweep, const ScenarioNames& scenarios) {
  ScenarioNames out;
  for (const std::string& name : scenarios)
    if (name.rfind(sweep + "-", 0) == 0) out.push_back(name);
  return out;
}

const std::set<std::string>& lab_value_names() {
  static const std::set<std::string> names = {"params", "grad_bytes", "grad_bytes_bf16",
                                              "ring_bytes_per_rank"};
  return names;
}

std::optional<WhatIfCost> parse_what_if_cost(const std::string& text) {
  static const std::string kNumber = R"(([0-9]+(?:\.[0-9]+)?))";
  static const std::regex kIdle("idle_usd_per_hour@extra_ms=" + kNumber + ",steps_per_hour=" +
                                kNumber + ",gpus=" + kNumber + ",usd=" + kNumber);
  static const std::regex kStall("stall_usd@stall_s=" + kNumber + ",gpus=" + kNumber + ",usd=" +
                                 kNumber);
  std::smatch m;
  WhatIfCost cost;
  if (std::regex_match(text, m, kIdle)) {
    cost.what = "idle_usd_per_hour";
    cost.extra_ms = std::stod(m[1]);
    cost.steps_per_hour = std::stod(m[2]);
    cost.gpus = std::stod(m[3]);
    cost.usd_per_gpu_hour = std::stod(m[4]);
  } else if (std::regex_match(text, m, kStall)) {
    cost.what = "stall_usd";
    cost.stall_s = std::stod(m[1]);
    cost.gpus = std::stod(m[2]);
    cost.usd_per_gpu_hour = std::stod(m[3]);
  } else {
    return std::nullopt;
  }
  if (cost.gpus <= 0 || cost.usd_per_gpu_hour <= 0)
    throw std::invalid_argument(cost.what + "@...: gpus and usd must be above 0");
  return cost;
}

std::optional<HopsQuery> parse_hops_query(const std::string& text) {
  static const std::regex kHops(R"(switch_hops@scenario=([a-z0-9_-]+),from=([0-9]{1,2}),to=([0-9]{1,2}))");
  std::smatch m;
  if (!std::regex_match(text, m, kHops)) return std::nullopt;
  return HopsQuery{m[1], std::stoi(m[2]), std::stoi(m[3])};
}

void validate_derivation(const Exercise& ex, const ScenarioNames& scenarios) {
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
      if ((ex.kind == Kind::kNumber || ex.kind == Kind::kPrediction) &&
          type != PathType::kNumber) {
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
      const auto ratio = parse_path_ratio(ex.value);
      std::vector<std::string> parts = {ratio ? ratio->numerator : ex.value};
      if (ratio && !literal_number(ratio->denominator)) parts.push_back(ratio->denominator);
      for (const std::string& part : parts) {
        const RecordingPath path = parse_recording_path(part);
        if (path.what == "reaches" && sweep_scenarios(path.sweep, scenarios).size() < 2)
          throw std::invalid_argument("the lab has no sweep '" + path.sweep +
                                      "' of at least two points (scenarios " + path.sweep +
                                      "-...)");
      }
      for (const std::string& s : path_scenarios(ex.value, scenarios)) {
        if (!has_scenario(scenarios, s))
          throw std::invalid_argument(no_scenario(s, scenarios));
      }
      return;
    }
    case Source::kLab:
      if (ex.kind == Kind::kNumber) {
        const auto hops = parse_hops_query(ex.value);
        if (hops && !has_scenario(scenarios, hops->scenario))
          throw std::invalid_argument("lab value '" + ex.value + "': " +
                                      no_scenario(hops->scenario, scenarios));
        if (!hops && !lab_value_names().count(ex.value) && !parse_what_if_cost(ex.value)) {
          throw std::invalid_argument(
              "lab value '" + ex.value + "': expected one of " + join(lab_value_names()) +
              ", idle_usd_per_hour@extra_ms=E,steps_per_hour=S,gpus=N,usd=P, "
              "stall_usd@stall_s=T,gpus=N,usd=P, switch_hops@scenario=NAME,from=A,to=B");
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

const std::set<std::string>& check_status_words() {
  // Every outcome a scenario of a finished lab can have; an interrupted run
  // is not graded as an outcome of the lab.
  static const std::set<std::string> words = [] {
    std::set<std::string> out;
    for (auto s : {rundir::ScenarioStatus::kCompleted, rundir::ScenarioStatus::kStalled,
                   rundir::ScenarioStatus::kDeadline, rundir::ScenarioStatus::kFailed,
                   rundir::ScenarioStatus::kSkipped}) {
      out.insert(rundir::to_string(s));
    }
    return out;
  }();
  return words;
}

Check parse_check(const std::string& text) {
  static const std::regex kScenario(R"(scenario ([a-z0-9_-]+) ([a-z|]+))");
  static const std::regex kQuantified(R"((any|no) scenario ([a-z|]+))");
  static const std::regex kCompare(
      R"((\S+) (>=|<=|==|>|<) (-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?))");
  static const std::regex kIs(R"((\S+) is ([a-z0-9_.-]+))");
  static const std::regex kComparePaths(
      R"((\S+) (>=|<=|==|>|<) (([0-9]+(\.[0-9]+)?) x )?([a-z][a-z0-9_.@=,-]*\.[a-z0-9_.@=,-]+))");
  std::smatch m;
  Check c;
  std::string status_text;
  if (text == "otherwise") return c;
  if (std::regex_match(text, m, kIs)) {
    c.form = Check::Form::kIs;
    c.path = m[1];
    c.word = m[2];
    return c;
  }
  if (std::regex_match(text, m, kScenario)) {
    c.form = Check::Form::kScenario;
    c.scenario = m[1];
    status_text = m[2];
  } else if (std::regex_match(text, m, kQuantified)) {
    c.form = m[1] == "any" ? Check::Form::kAny : Check::Form::kNo;
    status_text = m[2];
  } else if (std::regex_match(text, m, kCompare)) {
    c.form = Check::Form::kCompare;
    c.path = m[1];
    c.op = m[2];
    c.number = std::stod(m[3]);
    return c;
  } else if (std::regex_match(text, m, kComparePaths)) {
    c.form = Check::Form::kComparePaths;
    c.path = m[1];
    c.op = m[2];
    if (m[4].matched) c.scale = std::stod(m[4]);
    c.other_path = m[6];
    return c;
  } else {
    throw std::invalid_argument("check '" + text +
                                "' is not in the vocabulary (\"scenario NAME STATUS\", \"any "
                                "scenario STATUS\", \"no scenario STATUS\", \"PATH OP NUMBER\", "
                                "\"PATH OP [K x] PATH\", \"PATH is WORD\", \"otherwise\")");
  }
  c.statuses = split_alternatives(status_text);
  for (const std::string& status : c.statuses) {
    if (!check_status_words().count(status)) {
      throw std::invalid_argument("check '" + text + "': unknown status '" + status +
                                  "' (expected completed, stalled, deadline, failed or skipped)");
    }
  }
  return c;
}

std::vector<std::string> check_parts(const std::string& text) {
  static const std::string kAnd = " and ";
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t at = text.find(kAnd); at != std::string::npos; at = text.find(kAnd, start)) {
    parts.push_back(text.substr(start, at - start));
    start = at + kAnd.size();
  }
  parts.push_back(text.substr(start));
  return parts;
}

namespace {

void validate_one_check(const std::string& text, const ScenarioNames& scenarios) {
  const Check c = parse_check(text);
  if (c.form == Check::Form::kScenario && !has_scenario(scenarios, c.scenario)) {
    throw std::invalid_argument("check '" + text + "': " + no_scenario(c.scenario, scenarios));
  }
  if (c.form == Check::Form::kCompare && validate_recording_path(c.path) != PathType::kNumber) {
    throw std::invalid_argument("check '" + text + "': '" + c.path + "' is not a number");
  }
  if ((c.form == Check::Form::kCompare || c.form == Check::Form::kIs) &&
      !has_scenario(scenarios, path_scenario(parse_recording_path(c.path), scenarios))) {
    throw std::invalid_argument("check '" + text + "': '" + c.path +
                                "' names a scenario the lab does not have");
  }
  if (c.form == Check::Form::kComparePaths) {
    if (validate_recording_path(c.path) != PathType::kNumber)
      throw std::invalid_argument("check '" + text + "': '" + c.path + "' is not a number");
    if (c.scale <= 0)
      throw std::invalid_argument("check '" + text + "': expected a scale K > 0 in 'K x PATH'");
    const std::string label = seed_label(c.other_path);
    if (label.empty() && validate_recording_path(c.other_path) != PathType::kNumber) {
      throw std::invalid_argument("check '" + text + "': '" + c.other_path +
                                  "' is not a number (expected a recording path or seed.LABEL)");
    }
    for (const std::string& path : {c.path, c.other_path}) {
      if (seed_label(path).empty() && !has_scenario(scenarios, path_scenario(parse_recording_path(path), scenarios)))
        throw std::invalid_argument("check '" + text + "': '" + path + "' names a scenario the lab does not have");
    }
  }
  // A result field may hold a word (result.hot_uplink); lists never do.
  if (c.form == Check::Form::kIs && validate_recording_path(c.path) == PathType::kList) {
    throw std::invalid_argument("check '" + text + "': '" + c.path + "' is a list, not a word");
  }
}

}  // namespace

void validate_check(const std::string& text, const ScenarioNames& scenarios) {
  const std::vector<std::string> parts = check_parts(text);
  for (const std::string& part : parts) {
    if (parts.size() > 1 && part == "otherwise")
      throw std::invalid_argument("check '" + text + "': 'otherwise' stands alone, not in 'and'");
    validate_one_check(part, scenarios);
  }
}

namespace {

ScenarioNames one_check_scenarios(const std::string& text, const ScenarioNames& scenarios) {
  const Check c = parse_check(text);
  switch (c.form) {
    case Check::Form::kScenario:
      return {c.scenario};
    case Check::Form::kAny:
    case Check::Form::kNo:
      return scenarios;
    case Check::Form::kCompare:
    case Check::Form::kIs:
      return path_scenarios(c.path, scenarios);
    case Check::Form::kComparePaths: {
      ScenarioNames out = path_scenarios(c.path, scenarios);
      if (seed_label(c.other_path).empty()) {
        for (const std::string& s : path_scenarios(c.other_path, scenarios))
          if (!has_scenario(out, s)) out.push_back(s);
      }
      return out;
    }
    default:
      return {};
  }
}

}  // namespace

ScenarioNames check_scenarios(const std::string& text, const ScenarioNames& scenarios) {
  ScenarioNames out;
  for (const std::string& part : check_parts(text)) {
    for (const std::string& s : one_check_scenarios(part, scenarios))
      if (!has_scenario(out, s)) out.push_back(s);
  }
  return out;
}

std::string seed_label(const std::string& path) {
  static const std::regex kSeed(R"(seed\.([a-z0-9_]+))");
  std::smatch m;
  return std::regex_match(path, m, kSeed) ? m[1].str() : "";
}

}  // namespace fabriclab::runner
