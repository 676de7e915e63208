// A lab's graded exercises and the parts of lab.toml the grader needs, read
// from the lab's `[[exercise]]` tables (labs/SCHEMA.md, "Exercises").
//
// Contract: load_lab() validates every exercise completely -- kinds, sources,
// value paths, tolerances, options -- so grading never meets a malformed
// exercise; any error is an InputError "lab.toml:LINE: exercise 'id': ...".
// Plain values, no shared state: safe to use from any thread once loaded.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace fabriclab::runner::grading {

enum class Kind { kNumber, kChoice, kRank, kOrdering, kProperty };
// Where the expected answer comes from (labs/SCHEMA.md): the student's own
// recording, the lab's parameters, or the per-run seed kept in run.json.
enum class Source { kRecording, kLab, kSeed };

const char* kind_name(Kind kind);
const char* source_name(Source source);

// A tolerance for number answers: |answer - expected| <= absolute, or
// <= relative_percent/100 x |expected|. Both zero: exact (to 1e-9 relative).
struct Tolerance {
  double absolute = 0;
  double relative_percent = 0;
  std::string text() const;  // "10%" / "0.5" / "exact"
};

struct ChoiceOption {
  std::string key;   // what the student writes
  std::string text;  // what the option says
  // A property check (see property.h); every option whose check holds on
  // the recording is a right answer. Empty: never right (a distractor).
  // "otherwise": right when no earlier option's check held.
  std::string when;
};

struct Exercise {
  std::string id;  // [a-z0-9_-]+, unique in the lab; the key in answers.toml
  std::string prompt;
  int points = 1;
  std::vector<std::string> hints;
  Kind kind = Kind::kNumber;
  std::optional<Source> from;  // absent only for kind property
  // The derivation in its source's vocabulary (value_source.h), e.g.
  // "scenario.latency.result.slowdown", "grad_bytes", "slow_rank".
  std::string value;
  // A literal answer the lab states (from = "lab", kinds choice/rank/ordering).
  std::string answer;                     // choice key or rank id
  std::vector<std::string> answer_order;  // ordering
  std::string unit;                       // number: shown in prompts
  Tolerance tolerance;                    // number
  std::vector<ChoiceOption> options;      // choice
  std::string check;                      // property: the check (property.h)
  long line = 0;                          // where the table starts in lab.toml
};

// What the grader needs of a lab besides its exercises.
struct LabSpec {
  std::string path;  // the lab.toml read
  std::string id;    // "02"
  std::string model = "mlp";
  long width = 0;
  long ranks = 1;
  std::vector<std::string> scenarios;  // in lab order; the recording must have them all
  std::vector<Exercise> exercises;
};

// Reads labs/NN-*/lab.toml. Throws InputError naming file, line and key.
LabSpec load_lab(const std::string& lab_toml_path);

}  // namespace fabriclab::runner::grading
