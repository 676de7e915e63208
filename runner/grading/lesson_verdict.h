// Whether a run showed its lab's lesson: each `[[lesson]]` check of the lab
// (runner/lab/lesson.h) judged on the run's own recording. `fabriclab run`
// judges every run this way when it ends (runner/scenario/run_recorder.h),
// prints the verdict, and keeps it in run.json's "lesson"
// (recordings/FORMAT.md); the page shows it; the smoke tests fail on it.
//
// A check is not judged when the run cannot say: a scenario it reads did not
// run (`--scenario`), or it needs the full run's scale and the run was
// --quick. A check whose number is missing (a stalled scenario has no
// slowdown) is judged, and fails: the run did not show it.
// Pure functions of their inputs.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "runner/grading/graded_run.h"
#include "runner/lab/lab_definition.h"

namespace fabriclab::runner::grading {

enum class LessonOutcome { kHeld, kFailed, kNotJudged };
const char* outcome_word(LessonOutcome outcome);  // "held" | "failed" | "not judged"

struct LessonVerdict {
  LessonCheck check;
  LessonOutcome outcome = LessonOutcome::kNotJudged;
  // What the run measured, or why it was not judged: "2.25 > 1.5",
  // "7.86 vs 1.5 x 2.25 = 3.38", "scenario 'loss' did not run".
  std::string detail;
};

struct LessonJudgement {
  std::vector<LessonVerdict> verdicts;  // in lab.toml order
  int count(LessonOutcome outcome) const;
  // Every judged check held, and at least one was judged.
  bool held() const { return count(LessonOutcome::kFailed) == 0 && count(LessonOutcome::kHeld) > 0; }
};

LessonJudgement judge_lesson(const LabDefinition& lab, const GradedRun& run);

// run.json's "lesson": {"held": bool, "checks": [{"check", "claim", "outcome", "detail", "line"}]}.
nlohmann::json lesson_json(const LessonJudgement& judgement);
// The closing lines of a run: one line per check, then the verdict in words.
std::string lesson_text(const LessonJudgement& judgement, const std::string& readme);

}  // namespace fabriclab::runner::grading
