// Where a student stands in the course: for every lab, its newest run (the
// one `fabriclab grade NN` grades by default) and that run's grade, from the
// grader's own code (grader.h) on the run's answers.toml. `fabriclab
// progress` prints it (progress_output.h).
//
// Contract: lab_progress() never throws for one lab's trouble -- a lab.toml
// that does not load, a damaged run directory, an answers.toml that does not
// read -- it keeps the InputError's message in that lab's entry, so one
// broken lab or run does not hide the others. It throws InputError only when
// `labs_dir` itself is not a folder of labs (list_lab_files()).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace fabriclab::runner::grading {

// What is left to do for one lab, in the order a student meets them.
enum class LabState {
  kLabError,   // its lab.toml does not load
  kNotRun,     // no runs/NN-*/ with a run.json
  kDamaged,    // the newest run's directory does not read
  kNotGraded,  // run, but no answers.toml beside it (or it does not read)
  kFailing,    // graded, some exercise failing
  kDone,       // graded, every exercise passing (or the lab has none)
};
const char* state_word(LabState state);  // "lab error", "not run", ..., "done"

struct LabRunSummary {
  std::string dir;
  double started_unix_s = 0;  // 0 when run.json does not say
  bool quick = false;
  std::optional<bool> lesson_held;  // run.json's lesson.held; nullopt: no lesson recorded
};

struct LabGradeSummary {
  std::string answers_path;
  int score = 0;
  int max_score = 0;
  std::vector<std::string> failing;  // ids of the exercises that did not pass
};

struct LabProgress {
  std::string id;  // "02" (the folder's number when the lab does not load)
  std::string title;
  std::string summary;    // [lab] summary: what it teaches
  int max_score = 0;      // the points its exercises are worth
  int exercises = 0;
  LabState state = LabState::kNotRun;
  std::string problem;    // kLabError, kDamaged, or an answers.toml that does not read
  std::optional<LabRunSummary> run;
  std::optional<LabGradeSummary> grade;  // only when answers.toml read
};

struct CourseProgress {
  std::string labs_dir;
  std::string runs_dir;
  std::vector<LabProgress> labs;  // by number
  int done() const;
  int score() const;      // points earned over the graded labs
  int max_score() const;  // points every lab is worth
};

CourseProgress lab_progress(const std::string& labs_dir, const std::string& runs_dir);

}  // namespace fabriclab::runner::grading
