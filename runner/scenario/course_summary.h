// The table `fabriclab run all` (or a range, `run 02-05`) prints when every
// lab it ran has ended: per lab, how the run ended, how long it took, and
// whether its lesson held (run.json `lesson.held`), so a teacher preparing a
// class sees in one place which labs hold on this machine and how long the
// course takes.
//
// Contract: format_course_summary() is pure.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace fabriclab::runner {

struct CourseLabOutcome {
  std::string id;     // "02"
  std::string title;  // [lab] title
  int exit_code = 0;  // run_lab's: 0 ran as the lab expects, 1 a scenario failed
  std::string error;  // a lab that did not start: why (exit 2's message)
  double wall_s = 0;
  std::string run_dir;              // empty when it wrote none
  std::optional<bool> lesson_held;  // nullopt: no lesson judged
};

// The table, then the course's total wall time and what to do next.
std::string format_course_summary(const std::vector<CourseLabOutcome>& labs, bool stopped_early);

// "3 min 25 s", "48 s".
std::string minutes_and_seconds(double seconds);

}  // namespace fabriclab::runner
