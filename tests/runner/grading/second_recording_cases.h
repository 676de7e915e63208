// Each lab's second recording (second_recording.h: the reference with some
// scenarios' measurements moved under each other's names and a reseeded
// run), and how to tell whether it moved an exercise's expected answer.
// Shared by the tests that check a run-dependent exercise really reads the
// run: the hand-written answers must fail on it (hand_written_answers_test),
// and no exercise is answerable from its README (readme_answers_test).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "runner/grading/graded_run.h"
#include "runner/grading/value_source.h"
#include "runner/lab/lab_definition.h"
#include "tests/runner/grading/second_recording.h"

namespace fabriclab::runner::grading::testing {

struct LabCase {
  const char* id;
  RunChange change;
};
// One per lab in labs/, each chosen so that every run-dependent exercise's
// expected value moves (the comments in second_recording_cases.cc say how).
const std::vector<LabCase>& lab_cases();
// Names the lab in test output instead of the parameter's bytes.
void PrintTo(const LabCase& c, std::ostream* out);

// The reference recording recordings/ID-*/ (with a run.json), or "" when
// there is none.
std::string reference_recording(const std::string& lab_id);

// An exercise's expected answer on one recording, or that there is none
// (the grader fails the exercise saying why).
struct Expected {
  bool error = false;
  Value value;
};
Expected expected_of(const Exercise& ex, const LabDefinition& lab, const GradedRun& rec);

enum class Moved { kNo, kYes, kUnclear };
void PrintTo(Moved m, std::ostream* out);

// Whether `second` moved an exercise's expected answer so far that an
// answer right for `first` cannot be right for it: beyond the tolerance for
// a number; for a choice, no key right before is right now.
Moved compare(const Exercise& ex, const Expected& first, const Expected& second);

}  // namespace fabriclab::runner::grading::testing
