// A prediction exercise graded (labs/SCHEMA.md, "Predictions"): the value
// `fabriclab run` recorded before the scenario started (run.json's
// "predictions", prediction_record.h) against the value the run measured
// (the exercise's recording path, value_source.h).
//
//   recorded before the scenario started, within the tolerance: all points (PASS)
//   recorded before it started, outside the tolerance, or the run measured
//     nothing to compare with: points / 2, rounded down (FAIL) -- predicting
//     at all earns half
//   not recorded (no entry in run.json), or recorded after the scenario
//     started, or the scenario never started: 0 (FAIL)
//
// The answers file's value is not graded: when it differs from the recorded
// one (the student changed it after the run) the grade says so. Unlike the
// other kinds, the grade shows the measured value: the prediction was fixed
// before the run, so it gives nothing away. Pure function; no I/O.
#pragma once

#include <optional>
#include <string>

#include "runner/grading/answers.h"
#include "runner/grading/graded_run.h"
#include "runner/lab/lab_definition.h"

namespace fabriclab::runner::grading {

struct PredictionComparison {
  std::string before;                     // the scenario predicted
  std::optional<double> predicted;        // as recorded; nullopt: not recorded
  std::optional<double> recorded_unix_s;  // when the run took it
  std::optional<double> measured;         // nullopt: the run has no such value
  // (predicted - measured) / |measured| x 100; nullopt without both, or when measured is 0.
  std::optional<double> difference_percent;
  // The lab's sentence on what a prediction this far over (or under) the
  // measured value did not account for; empty when within the tolerance.
  std::string explain;
  // The answers file's value when it is not the recorded one (changed after the run).
  std::optional<double> changed_to;
};

struct PredictionVerdict {
  bool passed = false;
  int earned = 0;
  std::string reason;  // "" on PASS
  PredictionComparison comparison;
};

PredictionVerdict judge_prediction(const Exercise& exercise, const LabDefinition& lab,
                                   const GradedRun& rec, const Answer& answer);

}  // namespace fabriclab::runner::grading
