#include "runner/grading/prediction_grade.h"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <cmath>

#include "runner/grading/value_source.h"

namespace fabriclab::runner::grading {

namespace {

const RecordedPrediction* recorded(const GradedRun& rec, const std::string& id) {
  for (const RecordedPrediction& p : rec.predictions)
    if (p.id == id) return &p;
  return nullptr;
}

bool same(double a, double b) { return std::fabs(a - b) <= 1e-9 * std::max(1.0, std::fabs(b)); }

}  // namespace

PredictionVerdict judge_prediction(const Exercise& ex, const LabDefinition& lab,
                                   const GradedRun& rec, const Answer& answer) {
  PredictionVerdict v;
  PredictionComparison& c = v.comparison;
  c.before = ex.before;
  const RecordedPrediction* p = recorded(rec, ex.id);
  if (!p) {
    v.reason = "not predicted before the run";
    if (answer.given)
      v.reason += fmt::format(
          " (your answers file says {:g} now, but `fabriclab run` did not record it: only a "
          "prediction in the answers file when the run starts counts)",
          answer.number);
    return v;
  }
  c.predicted = p->value;
  c.recorded_unix_s = p->recorded_unix_s;
  if (answer.given && !same(answer.number, p->value)) c.changed_to = answer.number;
  if (!p->before_scenario_started_unix_s) {
    v.reason = "not recorded before scenario " + ex.before + " started: it did not start in this run";
    return v;
  }
  if (p->recorded_unix_s >= *p->before_scenario_started_unix_s) {
    v.reason = fmt::format("not recorded before scenario {} started (recorded {:.1f} s after)",
                           ex.before, p->recorded_unix_s - *p->before_scenario_started_unix_s);
    return v;
  }
  const int half = ex.points / 2;
  Value measured;
  try {
    measured = derive(ex, lab, rec);
  } catch (const DeriveError& e) {
    v.earned = half;
    v.reason = std::string("nothing measured to compare with: ") + e.what() +
               " (half the points for predicting)";
    return v;
  }
  if (measured.type != Value::Type::kNumber) {
    v.earned = half;
    v.reason = "your run measured no such value (did scenario " + ex.before +
               " complete?): half the points for predicting";
    return v;
  }
  c.measured = measured.number;
  if (measured.number != 0)
    c.difference_percent = (p->value - measured.number) / std::fabs(measured.number) * 100;
  const double allowed =
      std::max({ex.tolerance.absolute, ex.tolerance.relative_percent / 100 * std::fabs(measured.number),
                1e-9 * std::max(1.0, std::fabs(measured.number))});
  v.passed = std::fabs(p->value - measured.number) <= allowed;
  if (v.passed) {
    v.earned = ex.points;
    return v;
  }
  v.earned = half;
  c.explain = p->value > measured.number ? ex.explain_over : ex.explain_under;
  v.reason = "not within " + ex.tolerance.text() +
             " of what your run measured: half the points for predicting";
  return v;
}

}  // namespace fabriclab::runner::grading
