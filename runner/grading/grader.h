// Grades a lab's exercises against a student's recording and answers.
//
// Contract: grade() never throws for a wrong or unanswerable exercise; each
// gets PASS or FAIL with the points earned, a reason and (on FAIL) the
// exercise's first hint. Reasons and hints never contain the expected answer
// (they may name the requirement of a property check, which is the
// question) -- except a prediction's measured value (prediction_grade.h:
// fixed before the run, it gives nothing away). An exercise whose expected answer reads a part of the recording
// that the consistency check found damaged (a problem of one of its
// scenarios, or of the whole recording) fails with that problem as reason.
// Pure function; no I/O.
#pragma once

#include <string>
#include <vector>

#include "runner/grading/answers.h"
#include "runner/grading/consistency.h"
#include "runner/grading/graded_run.h"
#include "runner/grading/prediction_grade.h"
#include "runner/lab/lab_definition.h"

namespace fabriclab::runner::grading {

struct ExerciseGrade {
  std::string id;
  Kind kind = Kind::kNumber;
  int points = 0;
  int earned = 0;  // points for PASS; for an ordering, partial credit by pairs in order
  bool passed = false;
  std::string reason;  // why it failed ("" on PASS)
  std::string hint;    // the exercise's first hint on FAIL ("" on PASS)
  // kind prediction: what was predicted and measured (prediction_grade.h).
  std::optional<PredictionComparison> prediction;
};

struct GradeReport {
  std::string lab_id;
  std::string recording_dir;
  std::string answers_path;
  std::vector<Problem> problems;  // consistency problems of the recording
  std::vector<ExerciseGrade> grades;
  int score = 0;
  int max_score = 0;
  bool all_passed() const;
};

GradeReport grade(const LabDefinition& lab, const GradedRun& rec, const Answers& answers);

}  // namespace fabriclab::runner::grading
