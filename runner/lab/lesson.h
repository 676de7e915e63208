// A lab's lesson as checks: the properties its story rests on, stated in
// lab.toml (`[[lesson]]`, labs/SCHEMA.md "The lesson") in the exercises'
// check grammar (answer_vocabulary.h), e.g.
//
//   [[lesson]]
//   check = "scenario.loss.result.slowdown >= 1.5 x scenario.latency.result.slowdown"
//   claim = "a lost packet costs more than a long path: loss slows the job more than latency"
//
// Every run judges them on its own recording (runner/grading/lesson_verdict.h)
// and says whether the lesson held; the smoke tests fail when one does not.
// Plain values.
#pragma once

#include <string>
#include <vector>

#include <toml++/toml.h>

#include "runner/lab/answer_vocabulary.h"

namespace fabriclab::runner {

struct LessonCheck {
  std::string check;  // answer_vocabulary.h's check grammar (not "otherwise")
  std::string claim;  // what the lab teaches when it holds, in the student's words
  // `quick = false`: the property needs the full run's scale (more steps, a
  // longer deadline); a --quick run does not judge it.
  bool at_quick_scale = true;
  long line = 0;
};

// Reads the `[[lesson]]` tables of a lab once its scenarios are known.
// Errors: InputError "lab.toml:LINE: lesson: ..." (exit 2).
std::vector<LessonCheck> read_lesson(const std::string& lab_toml, const toml::table& root,
                                     const ScenarioNames& scenarios);

}  // namespace fabriclab::runner
