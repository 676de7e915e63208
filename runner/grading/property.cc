#include "runner/grading/property.h"

#include <algorithm>
#include <cmath>

#include "runner/grading/value_source.h"
#include "runner/lab/answer_vocabulary.h"
#include "runner/rundir/run_format.h"

namespace fabriclab::runner::grading {

namespace {

// A recorded status (absent: the recording did not say) against the
// check's words.
bool status_matches(const std::optional<rundir::ScenarioStatus>& status,
                    const std::vector<std::string>& alternatives) {
  return status && std::find(alternatives.begin(), alternatives.end(),
                             rundir::to_string(*status)) != alternatives.end();
}

}  // namespace

bool check_holds(const std::string& text, const LabDefinition& lab, const GradedRun& rec) {
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
    case Check::Form::kIs: {
      const Value v = evaluate_recording_path(c.path, lab, rec);
      return v.type == Value::Type::kText && v.text == c.word;
    }
  }
  return false;
}

}  // namespace fabriclab::runner::grading
