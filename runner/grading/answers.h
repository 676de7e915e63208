// The student's answers file (answers.toml): one top-level key per exercise
// id. Numbers are TOML numbers (or a string holding one, or "none" when the
// run has no such value, e.g. the slowdown of a stalled scenario); choices and ranks
// strings ("latency", "r2" -- a rank may also be the integer 2); orderings
// arrays of scenario names; predictions numbers (prediction_record.h: the
// run records them, the grader reads the recorded ones). "" or [] means "not answered yet" (what the
// template from write_answers_template() holds).
//
// Contract: load_answers() throws InputError "file:line: ..." when the file
// is missing, is not TOML, names an exercise the lab does not have, or gives
// an answer of the wrong shape (a list for a number, a choice that is not an
// option). A well-formed wrong answer is not an error: the grader fails it.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runner/lab/lab_definition.h"

namespace fabriclab::runner::grading {

struct Answer {
  bool given = false;  // false: "" / [] / absent
  double number = 0;
  bool none = false;              // number: the string "none" (no such value in the run)
  std::string text;               // choice key, or rank as "rN"
  std::vector<std::string> list;  // ordering
};

// exercise id -> answer (every exercise of the lab has an entry).
using Answers = std::map<std::string, Answer>;

Answers load_answers(const std::string& path, const LabDefinition& lab);

// The answers template: a comment block per exercise with its prompt, points,
// unit and options, then `id = ""` (or `[]`) for the student to fill in.
// Property exercises appear as comments only (nothing to answer).
// `recording_dir` empty: there is no run yet (the file is for predictions first).
std::string answers_template(const LabDefinition& lab, const std::string& recording_dir);

// The lab's own answers file, for predictions before a run: RUNS/NN-answers.toml
// (`fabriclab grade NN --init` writes it when there is no recording yet;
// `fabriclab run NN` reads predictions from it).
std::string lab_answers_path(const std::string& runs_dir, const std::string& lab_id);
// The answers file grading reads when none is named: RECORDING/answers.toml
// when it exists, else RUNS/NN-answers.toml when that exists, else
// RECORDING/answers.toml (which the error message then names).
std::string default_answers_path(const std::string& recording_dir, const std::string& runs_dir,
                                 const std::string& lab_id);

}  // namespace fabriclab::runner::grading
