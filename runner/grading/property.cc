#include "runner/grading/property.h"

#include <algorithm>
#include <cmath>
#include <regex>

#include "runner/grading/value_source.h"

namespace fabriclab::runner::grading {

namespace {

// "stalled|deadline" -> {"stalled", "deadline"}: any of them matches.
std::vector<std::string> alternatives_of(const std::string& alternatives) {
  std::vector<std::string> out;
  size_t begin = 0;
  while (true) {
    const size_t bar = alternatives.find('|', begin);
    out.push_back(alternatives.substr(begin, bar - begin));
    if (bar == std::string::npos) return out;
    begin = bar + 1;
  }
}

bool status_matches(const std::optional<rundir::ScenarioStatus>& status,
                    const std::vector<rundir::ScenarioStatus>& alternatives) {
  return status &&
         std::find(alternatives.begin(), alternatives.end(), *status) != alternatives.end();
}

struct Check {
  enum class Form { kOtherwise, kScenario, kAny, kNo, kCompare } form = Form::kOtherwise;
  std::string scenario, path, op;
  std::vector<rundir::ScenarioStatus> statuses;  // any of them matches
  double number = 0;
};

Check parse_check(const std::string& text) {
  static const std::regex kScenario(R"(scenario ([a-z0-9_-]+) ([a-z|]+))");
  static const std::regex kQuantified(R"((any|no) scenario ([a-z|]+))");
  static const std::regex kCompare(
      R"((\S+) (>=|<=|==|>|<) (-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?))");
  std::smatch m;
  Check c;
  std::string alternatives;
  if (text == "otherwise") return c;
  if (std::regex_match(text, m, kScenario)) {
    c.form = Check::Form::kScenario;
    c.scenario = m[1];
    alternatives = m[2];
  } else if (std::regex_match(text, m, kQuantified)) {
    c.form = m[1] == "any" ? Check::Form::kAny : Check::Form::kNo;
    alternatives = m[2];
  } else if (std::regex_match(text, m, kCompare)) {
    c.form = Check::Form::kCompare;
    c.path = m[1];
    c.op = m[2];
    c.number = std::stod(m[3]);
    return c;
  } else {
    throw std::invalid_argument("check '" + text +
                                "' is not in the vocabulary (\"scenario NAME STATUS\", \"any "
                                "scenario STATUS\", \"no scenario STATUS\", \"PATH OP NUMBER\", "
                                "\"otherwise\")");
  }
  for (const std::string& word : alternatives_of(alternatives)) {
    // A run that was interrupted is not graded as an outcome of the lab.
    const auto status = rundir::scenario_status_from_string(word);
    if (!status || *status == rundir::ScenarioStatus::kInterrupted) {
      throw std::invalid_argument("check '" + text + "': unknown status '" + word +
                                  "' (expected completed, stalled, deadline, failed or skipped)");
    }
    c.statuses.push_back(*status);
  }
  return c;
}

}  // namespace

void validate_check(const std::string& text, const LabSpec& lab) {
  const Check c = parse_check(text);
  if (c.form == Check::Form::kScenario &&
      std::find(lab.scenarios.begin(), lab.scenarios.end(), c.scenario) == lab.scenarios.end()) {
    throw std::invalid_argument("check '" + text + "': the lab has no scenario '" + c.scenario +
                                "'");
  }
  if (c.form == Check::Form::kCompare && validate_recording_path(c.path) != PathType::kNumber) {
    throw std::invalid_argument("check '" + text + "': '" + c.path + "' is not a number");
  }
}

bool check_holds(const std::string& text, const LabSpec& lab, const Recording& rec) {
  const Check c = parse_check(text);
  switch (c.form) {
    case Check::Form::kOtherwise:
      return true;
    case Check::Form::kScenario: {
      const RecordedScenario* s = rec.scenario(c.scenario);
      if (!s) throw DeriveError("your recording has no scenario '" + c.scenario + "'");
      return status_matches(s->status, c.statuses);
    }
    case Check::Form::kAny:
    case Check::Form::kNo: {
      bool any = false;
      for (const RecordedScenario& s : rec.scenarios)
        any = any || status_matches(s.status, c.statuses);
      return c.form == Check::Form::kAny ? any : !any;
    }
    case Check::Form::kCompare: {
      const Value v = evaluate_recording_path(c.path, lab, rec);
      if (v.type != Value::Type::kNumber) return false;  // null: no measurement to compare
      if (c.op == ">=") return v.number >= c.number;
      if (c.op == "<=") return v.number <= c.number;
      if (c.op == ">") return v.number > c.number;
      if (c.op == "<") return v.number < c.number;
      return std::fabs(v.number - c.number) <= 1e-9 * std::max(1.0, std::fabs(c.number));
    }
  }
  return false;
}

std::vector<std::string> check_scenarios(const std::string& text, const LabSpec& lab) {
  const Check c = parse_check(text);
  switch (c.form) {
    case Check::Form::kScenario:
      return {c.scenario};
    case Check::Form::kAny:
    case Check::Form::kNo:
      return lab.scenarios;
    case Check::Form::kCompare:
      return path_scenarios(c.path, lab);
    default:
      return {};
  }
}

}  // namespace fabriclab::runner::grading
