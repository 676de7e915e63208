#include "runner/grading/property.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "runner/grading/value_source.h"
#include "runner/lab/answer_vocabulary.h"
#include "runner/lab/seed_pick.h"
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

bool compare(double left, const std::string& op, double right) {
  if (op == ">=") return left >= right;
  if (op == "<=") return left <= right;
  if (op == ">") return left > right;
  if (op == "<") return left < right;
  return std::fabs(left - right) <= 1e-9 * std::max(1.0, std::fabs(right));
}

std::optional<double> number_at(const std::string& path, const LabDefinition& lab,
                                const GradedRun& rec) {
  const std::string label = seed_label(path);
  if (!label.empty()) {
    if (!rec.seed) throw DeriveError("the recording's run.json has no seed");
    const long ranks = rec.ranks > 0 ? rec.ranks : lab.ranks;
    return static_cast<double>(seed_pick(*rec.seed, label, static_cast<uint64_t>(ranks)));
  }
  const Value v = evaluate_recording_path(path, lab, rec);
  // A curve measured at every point that never reaches its level crosses it
  // beyond the sweep, if anywhere: above any number the other side has.
  if (v.beyond_sweep) return std::numeric_limits<double>::infinity();
  if (v.type != Value::Type::kNumber) return std::nullopt;  // null: no measurement
  return v.number;
}

}  // namespace

std::optional<ComparedNumbers> compared_numbers(const std::string& text, const LabDefinition& lab,
                                                const GradedRun& rec) {
  if (check_parts(text).size() > 1) return std::nullopt;  // a conjunction: several comparisons
  const Check c = parse_check(text);
  if (c.form == Check::Form::kCompare) return ComparedNumbers{number_at(c.path, lab, rec), c.number};
  if (c.form != Check::Form::kComparePaths) return std::nullopt;
  ComparedNumbers out{number_at(c.path, lab, rec), number_at(c.other_path, lab, rec)};
  if (out.right) *out.right *= c.scale;
  return out;
}

bool check_holds(const std::string& text, const LabDefinition& lab, const GradedRun& rec) {
  const std::vector<std::string> parts = check_parts(text);
  if (parts.size() > 1) {
    for (const std::string& part : parts)
      if (!check_holds(part, lab, rec)) return false;
    return true;
  }
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
    case Check::Form::kCompare:
    case Check::Form::kComparePaths: {
      const ComparedNumbers n = *compared_numbers(text, lab, rec);
      // A side without a number (a stalled scenario's slowdown): nothing
      // measured to compare, so the check does not hold.
      return n.left && n.right && compare(*n.left, c.op, *n.right);
    }
    case Check::Form::kIs: {
      const Value v = evaluate_recording_path(c.path, lab, rec);
      return v.type == Value::Type::kText && v.text == c.word;
    }
  }
  return false;
}

}  // namespace fabriclab::runner::grading
