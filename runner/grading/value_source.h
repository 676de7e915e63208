// The expected answer of an exercise, derived from the student's recording,
// the lab's parameters or the per-run seed -- the evaluation side of the
// exercise vocabulary whose grammar is the lab model's
// (runner/lab/answer_vocabulary.h, labs/SCHEMA.md).
//
// Contract: derive() runs at grade time and throws DeriveError when the
// recording lacks what the path names (e.g. no eval after that step): the
// exercise then fails with that reason.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "runner/grading/graded_run.h"
#include "runner/lab/exercise.h"
#include "runner/lab/lab_definition.h"

namespace fabriclab::runner::grading {

struct Value {
  enum class Type { kNull, kNumber, kText, kList };
  Type type = Type::kNull;
  double number = 0;
  std::string text;
  std::vector<std::string> list;
  // A null `@reaches` whose sweep measured every point and never reached the
  // level: the crossing, if any, lies beyond the sweep's last value. A lesson
  // check compares it as above every number (property.cc); an exercise's
  // answer stays "none".
  bool beyond_sweep = false;
};

class DeriveError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

Value evaluate_recording_path(const std::string& path, const LabDefinition& lab,
                              const GradedRun& rec);

// The expected answer of a number/choice/rank/ordering exercise. A choice
// from the recording yields the list of right option keys (kList).
Value derive(const Exercise& exercise, const LabDefinition& lab, const GradedRun& rec);

// The scenarios an exercise's expected answer depends on, and whether it
// depends on the recording at all (false for lab-derived exercises).
struct Dependencies {
  bool recording = false;
  std::vector<std::string> scenarios;
};
Dependencies dependencies(const Exercise& exercise, const LabDefinition& lab);

}  // namespace fabriclab::runner::grading
