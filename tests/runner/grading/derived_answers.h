// Answers files derived from a real recording with the grader's own
// vocabulary (runner/grading/value_source.h): the right answers, which must
// PASS, and the same answers perturbed, which must FAIL with a hint. Used on
// the reference recordings and on each lab's own --quick run, so a lab's
// exercises are checked against what the runner really records.
//
// Property and prediction exercises get no line (the grader checks them on
// the recording alone); an exercise with no wrong answer to give (a one-rank `rank`
// exercise, a choice whose every option is right) gets an empty wrong line.
#pragma once

#include <string>
#include <vector>

namespace fabriclab::runner::grading::testing {

struct DerivedAnswers {
  std::string right;                  // answers.toml text that must pass
  std::string wrong;                  // answers.toml text whose every line is wrong
  int wrong_count = 0;                // exercises answered wrong (non-empty lines)
  std::vector<std::string> problems;  // the recording's consistency problems
};

// Loads `lab_toml` and the run directory `recording_dir`; throws InputError
// as the grader would when either cannot be read.
DerivedAnswers derive_answers(const std::string& lab_toml, const std::string& recording_dir);

}  // namespace fabriclab::runner::grading::testing
