#include "runner/grading/grade_output.h"

#include <sstream>

namespace fabriclab::runner::grading {

using nlohmann::json;

std::string format_grade_text(const GradeReport& report) {
  std::ostringstream out;
  out << "Lab " << report.lab_id << ", recording " << report.recording_dir << "\n";
  if (!report.answers_path.empty()) out << "Answers " << report.answers_path << "\n";
  if (report.problems.empty()) {
    out << "Recording check: consistent\n";
  } else {
    out << "Recording check: " << report.problems.size() << " problem"
        << (report.problems.size() == 1 ? "" : "s") << " (the exercises that read them fail):\n";
    for (const Problem& p : report.problems) out << "  - " << p.message << "\n";
  }
  out << "\n";
  size_t width = 8;
  for (const ExerciseGrade& g : report.grades) width = std::max(width, g.id.size());
  int passed = 0;
  for (const ExerciseGrade& g : report.grades) {
    passed += g.passed ? 1 : 0;
    out << (g.passed ? "PASS  " : "FAIL  ") << g.id << std::string(width - g.id.size() + 2, ' ')
        << g.earned << "/" << g.points << "\n";
    if (!g.passed) {
      out << std::string(6, ' ') << g.reason << "\n";
      if (!g.hint.empty()) out << std::string(6, ' ') << "hint: " << g.hint << "\n";
    }
  }
  const int percent = report.max_score > 0 ? report.score * 100 / report.max_score : 100;
  out << "\nTotal: " << report.score << "/" << report.max_score << " points (" << percent << "%), "
      << passed << " of " << report.grades.size() << " exercises passed\n";
  return out.str();
}

json grade_json(const GradeReport& report) {
  json problems = json::array();
  for (const Problem& p : report.problems) {
    problems.push_back({{"scenario", p.scenario.empty() ? json() : json(p.scenario)},
                        {"rank", p.rank < 0 ? json() : json(p.rank)},
                        {"message", p.message}});
  }
  json exercises = json::array();
  for (const ExerciseGrade& g : report.grades) {
    exercises.push_back({{"id", g.id},
                         {"kind", kind_name(g.kind)},
                         {"status", g.passed ? "pass" : "fail"},
                         {"points", g.points},
                         {"earned", g.earned},
                         {"reason", g.passed ? json() : json(g.reason)},
                         {"hint", g.passed ? json() : json(g.hint)}});
  }
  return {{"format", "fabriclab-grade"},
          {"version", 1},
          {"lab", report.lab_id},
          {"recording", report.recording_dir},
          {"answers", report.answers_path.empty() ? json() : json(report.answers_path)},
          {"passed", report.all_passed()},
          {"score", report.score},
          {"max_score", report.max_score},
          {"consistent", report.problems.empty()},
          {"problems", problems},
          {"exercises", exercises}};
}

}  // namespace fabriclab::runner::grading
