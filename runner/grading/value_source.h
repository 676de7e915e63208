// The vocabulary of expected answers (labs/SCHEMA.md, "Where the expected
// answer comes from"): a small, fixed set of paths into the student's
// recording, of quantities computed from the lab's parameters, and of picks
// derived from the per-run seed. Not an expression language.
//
//   from = "recording"
//     scenario.NAME.result.FIELD      number (or null): run.json's summary row
//     scenario.NAME.status            text: completed | stalled | ...
//     scenario.NAME.steps_completed   number
//     [scenario.NAME.]eval.FIELD@step=N   number: rank 0's eval after step N
//     [scenario.NAME.]start.FIELD     number: rank 0's start event (params, grad_bytes...)
//     [scenario.NAME.]final.FIELD     number: rank 0's final event
//     scenarios.ordered_by.result.FIELD   list: scenario names, ascending (nulls last)
//   (without "scenario.NAME." the lab's first scenario is meant)
//   from = "lab"
//     params | grad_bytes | grad_bytes_bf16 | ring_bytes_per_rank   numbers
//     (empty value with `answer` = a literal choice key, rank or ordering)
//   from = "seed"
//     LABEL                           rank "rN" = seed_pick_rank(seed, LABEL, ranks)
//
// Contract: validate_*() run when lab.toml is loaded and throw
// std::invalid_argument with a message fit to follow "exercise 'id': ".
// derive() runs at grade time and throws DeriveError when the recording
// lacks what the path names (e.g. no eval after that step): the exercise
// then fails with that reason.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "runner/grading/exercise.h"
#include "runner/grading/recording.h"

namespace fabriclab::runner::grading {

struct Value {
  enum class Type { kNull, kNumber, kText, kList };
  Type type = Type::kNull;
  double number = 0;
  std::string text;
  std::vector<std::string> list;
};

class DeriveError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What a recording path yields; also used by property checks.
enum class PathType { kNumber, kText, kList };

// Validates a recording path; returns what it yields.
PathType validate_recording_path(const std::string& path);
// Validates an exercise's derivation against its kind (at load time).
void validate_derivation(const Exercise& exercise);

// The scenarios a recording path reads (empty for lab/seed sources); the
// lab's first scenario stands in for an unqualified path, and a slowdown
// also reads the baseline ("clean", else the first scenario).
std::vector<std::string> path_scenarios(const std::string& path, const LabSpec& lab);

Value evaluate_recording_path(const std::string& path, const LabSpec& lab, const Recording& rec);

// The expected answer of a number/choice/rank/ordering exercise. A choice
// from the recording yields the list of right option keys (kList).
Value derive(const Exercise& exercise, const LabSpec& lab, const Recording& rec);

// The scenarios an exercise's expected answer depends on, and whether it
// depends on the recording at all (false for lab-derived exercises).
struct Dependencies {
  bool recording = false;
  std::vector<std::string> scenarios;
};
Dependencies dependencies(const Exercise& exercise, const LabSpec& lab);

}  // namespace fabriclab::runner::grading
