// One graded question of a lab, as its `[[exercise]]` table states it
// (labs/SCHEMA.md, "Exercises"). Part of the lab model (lab_definition.h):
// load_lab() reads and validates every exercise completely -- kinds,
// sources, value paths and checks (answer_vocabulary.h), tolerances,
// options -- so grading never meets a malformed exercise; any error is an
// InputError "lab.toml:LINE: exercise 'id': ...".
// Plain values, no shared state: safe to use from any thread once loaded.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace fabriclab::runner {

// kPrediction: a number the student writes before a scenario runs;
// `fabriclab run` records it in run.json, the grader compares it with what
// the run measured (runner/grading/prediction_grade.h).
enum class Kind { kNumber, kChoice, kRank, kOrdering, kProperty, kPrediction };
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
  // A property check (answer_vocabulary.h); every option whose check holds on
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
  // Absent only for kind property; a prediction is always compared with the
  // recording (kRecording, set by the reader: its table has no `from`).
  std::optional<Source> from;
  // The derivation in its source's vocabulary (answer_vocabulary.h), e.g.
  // "scenario.latency.result.slowdown", "grad_bytes", "slow_rank".
  std::string value;
  // A literal answer the lab states (from = "lab", kinds choice/rank/ordering).
  std::string answer;                     // choice key or rank id
  std::vector<std::string> answer_order;  // ordering
  std::string unit;                       // number, prediction: shown in prompts
  Tolerance tolerance;                    // number, prediction
  std::vector<ChoiceOption> options;      // choice
  std::string check;                      // property: the check (answer_vocabulary.h)
  // prediction: the scenario it must be recorded before (a scenario of the
  // lab), and what the student probably did not account for when the
  // prediction misses: one sentence for a prediction above the measured
  // value, one for below ("explain" as one string: both the same; empty:
  // no explanation).
  std::string before;
  std::string explain_over;
  std::string explain_under;
  // false: the lab declares that no plausible run changes the expected answer
  // (from = "recording" or "seed" only); tests that check "no exercise is
  // answerable without running" list such exercises instead of failing them.
  bool depends_on_run = true;
  long line = 0;                          // where the table starts in lab.toml
};

}  // namespace fabriclab::runner
