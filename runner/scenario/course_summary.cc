#include "runner/scenario/course_summary.h"

#include <spdlog/fmt/fmt.h>

#include <cmath>

namespace fabriclab::runner {
namespace {

std::string ending(const CourseLabOutcome& lab) {
  if (!lab.error.empty()) return "did not start";
  return lab.exit_code == 0 ? "ran" : "FAILED";
}

std::string lesson_word(const CourseLabOutcome& lab) {
  if (!lab.lesson_held) return "-";
  return *lab.lesson_held ? "held" : "NOT held";
}

}  // namespace

std::string minutes_and_seconds(double seconds) {
  const long whole = std::lround(seconds);
  if (whole < 60) return fmt::format("{} s", whole);
  return fmt::format("{} min {:02} s", whole / 60, whole % 60);
}

std::string format_course_summary(const std::vector<CourseLabOutcome>& labs, bool stopped_early) {
  std::string out = "\n== The course on this machine ==\n";
  out += fmt::format("{:<4} {:<36} {:<13} {:>12}  {:<9} {}\n", "lab", "title", "run", "wall",
                     "lesson", "run directory");
  double total_s = 0;
  int failed = 0;
  int not_held = 0;
  for (const CourseLabOutcome& lab : labs) {
    total_s += lab.wall_s;
    if (!lab.error.empty() || lab.exit_code != 0) ++failed;
    if (lab.lesson_held && !*lab.lesson_held) ++not_held;
    out += fmt::format("{:<4} {:<36} {:<13} {:>12}  {:<9} {}\n", lab.id, lab.title.substr(0, 36),
                       ending(lab), minutes_and_seconds(lab.wall_s), lesson_word(lab),
                       lab.error.empty() ? lab.run_dir : lab.error);
  }
  out += fmt::format("\n{} lab{} in {}", labs.size(), labs.size() == 1 ? "" : "s",
                     minutes_and_seconds(total_s));
  if (stopped_early) out += "; stopped before the rest (a stop signal)";
  out += ".\n";
  if (failed > 0)
    out += fmt::format("{} lab{} did not run to the end: its own output above says why.\n", failed,
                       failed == 1 ? "" : "s");
  if (not_held > 0)
    out += fmt::format(
        "{} lesson{} did not hold here: the lab's README, \"The lesson, checked on your run\", "
        "says what that means.\n",
        not_held, not_held == 1 ? "" : "s");
  out += "Grade a lab with `fabriclab grade NN --init`, then `fabriclab grade NN`; "
         "`fabriclab progress` shows the whole course.\n";
  return out;
}

}  // namespace fabriclab::runner
