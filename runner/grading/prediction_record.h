// Predictions as a run records them: before its scenarios start, `fabriclab
// run` takes every prediction exercise's answer from the student's answers
// file (labs/SCHEMA.md, "Predictions") and keeps it in run.json's
// "predictions" (recordings/FORMAT.md) with the time it was taken and, once
// the scenario it predicts has started, that scenario's start time. The
// grader reads them back from run.json: the recorded value is the one
// graded, whatever the answers file says later.
//
// Contract: take_predictions() and predictions_json() are pure.
// read_predictions() throws InputError "run.json:LINE: field 'predictions'...:
// expected ..." for a malformed entry; a run.json without "predictions" (a
// recording from before them) reads as none.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "runner/grading/answers.h"
#include "runner/lab/lab_definition.h"

namespace fabriclab::runner::grading {

struct RecordedPrediction {
  std::string id;      // the exercise
  double value = 0;    // what the student predicted
  double recorded_unix_s = 0;  // when the run took it from the answers file
  std::string before;  // the scenario it predicts (the exercise's `before`)
  // When that scenario started in this run; nullopt while it has not (or
  // never did: left out with --scenario, or the run stopped first).
  std::optional<double> before_scenario_started_unix_s;
};

// Every prediction exercise of `lab` that `answers` gives a value for, in
// lab order, taken at `now_unix_s`. Unanswered ones are left out (a missing
// prediction is not an error: it earns nothing).
std::vector<RecordedPrediction> take_predictions(const LabDefinition& lab, const Answers& answers,
                                                 double now_unix_s);

// Sets the start time of the predictions of `scenario` that have none yet.
void mark_scenario_started(std::vector<RecordedPrediction>& predictions,
                           const std::string& scenario, double started_unix_s);

// run.json's "predictions": [{id, value, recorded_unix_s, before,
// before_scenario_started_unix_s (null when it did not start)}].
nlohmann::json predictions_json(const std::vector<RecordedPrediction>& predictions);

// run.json's "predictions" read back; `manifest_path` and `manifest_text`
// place errors at their line.
std::vector<RecordedPrediction> read_predictions(const std::string& manifest_path,
                                                 const std::string& manifest_text,
                                                 const nlohmann::json& run);

// The one line `fabriclab run` prints per prediction exercise: the value it
// took, or that there was none (and, when `answers_path` does not exist, how
// to make it).
std::string prediction_line(const Exercise& exercise, const RecordedPrediction* taken,
                            const std::string& answers_path, const std::string& lab_id);

}  // namespace fabriclab::runner::grading
