#include "runner/grading/lab_progress.h"

#include <filesystem>

#include "common/input_error.h"
#include "runner/grading/answers.h"
#include "runner/grading/graded_run.h"
#include "runner/grading/grader.h"
#include "runner/lab/lab_catalogue.h"

namespace fabriclab::runner::grading {
namespace {

namespace fs = std::filesystem;

LabRunSummary run_summary(const GradedRun& rec) {
  LabRunSummary run;
  run.dir = rec.dir;
  const nlohmann::json& manifest = rec.run;
  if (manifest.contains("started_unix_s") && manifest["started_unix_s"].is_number())
    run.started_unix_s = manifest["started_unix_s"].get<double>();
  run.quick = manifest.contains("quick") && manifest["quick"].is_boolean() &&
              manifest["quick"].get<bool>();
  // The verdict the run itself recorded (recordings/FORMAT.md "lesson"), not
  // a new judgement: progress reports what the student saw when the run ended.
  if (manifest.contains("lesson") && manifest["lesson"].is_object()) {
    const nlohmann::json& held = manifest["lesson"].value("held", nlohmann::json());
    if (held.is_boolean()) run.lesson_held = held.get<bool>();
  }
  return run;
}

// The lab's run and grade; `p` already holds what the lab.toml says.
void add_run_and_grade(const LabDefinition& lab, const std::string& runs_dir, LabProgress& p) {
  const std::optional<std::string> dir = find_newest_run_dir(runs_dir, lab.id);
  if (!dir) {
    p.state = LabState::kNotRun;
    return;
  }
  GradedRun rec;
  try {
    rec = load_graded_run(*dir);
  } catch (const InputError& e) {
    p.state = LabState::kDamaged;
    p.run.emplace();
    p.run->dir = *dir;
    p.problem = e.what();
    return;
  }
  p.run = run_summary(rec);
  if (rec.lab_id != lab.id) {
    p.state = LabState::kDamaged;
    p.problem = *dir + ": a recording of lab " + rec.lab_id + ", not of lab " + lab.id;
    return;
  }
  if (lab.exercises.empty()) {
    p.state = LabState::kDone;  // nothing to answer: running it was the lab
    return;
  }
  // The file `fabriclab grade NN` reads by default (beside the run, else the
  // lab's own runs/NN-answers.toml that held the predictions).
  const std::string answers_path = default_answers_path(*dir, runs_dir, lab.id);
  p.state = LabState::kNotGraded;
  if (!fs::exists(answers_path)) return;
  try {
    // The grader's own path (`fabriclab grade NN`), so progress and grade
    // never disagree on a score.
    const LabDefinition drawn = lab_for_run(lab, rec);  // the student's own conditions
    const GradeReport report = grade(drawn, rec, load_answers(answers_path, drawn));
    LabGradeSummary g{answers_path, report.score, report.max_score, {}};
    for (const ExerciseGrade& e : report.grades)
      if (!e.passed) g.failing.push_back(e.id);
    p.state = g.failing.empty() ? LabState::kDone : LabState::kFailing;
    p.grade = std::move(g);
  } catch (const InputError& e) {
    p.problem = e.what();  // an answers.toml that does not read: still not graded
  }
}

LabProgress progress_of(const CatalogueEntry& entry, const std::string& runs_dir) {
  LabProgress p;
  p.id = entry.id();
  if (!entry.lab) {
    p.title = entry.folder;
    p.state = LabState::kLabError;
    p.problem = entry.error;
    return p;
  }
  const LabDefinition& lab = *entry.lab;
  p.title = lab.title;
  p.summary = lab.summary;
  p.exercises = static_cast<int>(lab.exercises.size());
  for (const Exercise& e : lab.exercises) p.max_score += e.points;
  add_run_and_grade(lab, runs_dir, p);
  return p;
}

}  // namespace

const char* state_word(LabState state) {
  switch (state) {
    case LabState::kLabError: return "lab error";
    case LabState::kNotRun: return "not run";
    case LabState::kDamaged: return "damaged";
    case LabState::kNotGraded: return "not graded";
    case LabState::kFailing: return "failing";
    case LabState::kDone: return "done";
  }
  return "?";
}

int CourseProgress::done() const {
  int n = 0;
  for (const LabProgress& lab : labs) n += lab.state == LabState::kDone ? 1 : 0;
  return n;
}

int CourseProgress::score() const {
  int n = 0;
  for (const LabProgress& lab : labs) n += lab.grade ? lab.grade->score : 0;
  return n;
}

int CourseProgress::max_score() const {
  int n = 0;
  for (const LabProgress& lab : labs) n += lab.max_score;
  return n;
}

CourseProgress lab_progress(const std::string& labs_dir, const std::string& runs_dir) {
  CourseProgress course{labs_dir, runs_dir, {}};
  for (const CatalogueEntry& entry : load_every_lab(labs_dir))
    course.labs.push_back(progress_of(entry, runs_dir));
  return course;
}

}  // namespace fabriclab::runner::grading
