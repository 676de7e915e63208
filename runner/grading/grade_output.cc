#include "runner/grading/grade_output.h"

#include <spdlog/fmt/fmt.h>

#include <sstream>

namespace fabriclab::runner::grading {

using nlohmann::json;

namespace {

json optional_number(const std::optional<double>& v) { return v ? json(*v) : json(); }

// A prediction's lines under its PASS/FAIL line: predicted, measured, the
// difference, what the miss did not account for, and a changed answer.
void prediction_lines(std::ostringstream& out, const PredictionComparison& c) {
  const std::string indent(6, ' ');
  if (c.predicted) {
    out << indent << fmt::format("predicted {:g} before scenario {} started", *c.predicted, c.before);
    if (c.measured) out << fmt::format(", measured {:g}", *c.measured);
    if (c.difference_percent) out << fmt::format(" ({:+.1f}%)", *c.difference_percent);
    out << "\n";
  }
  if (!c.explain.empty()) out << indent << "why: " << c.explain << "\n";
  if (c.changed_to) {
    out << indent
        << fmt::format("note: your answers file says {:g} now; graded on {:g}, the prediction "
                       "recorded before the run",
                       *c.changed_to, *c.predicted)
        << "\n";
  }
}

json prediction_json(const PredictionComparison& c) {
  return {{"before", c.before},
          {"predicted", optional_number(c.predicted)},
          {"recorded_unix_s", optional_number(c.recorded_unix_s)},
          {"measured", optional_number(c.measured)},
          {"difference_percent", optional_number(c.difference_percent)},
          {"explain", c.explain.empty() ? json() : json(c.explain)},
          {"changed_after_run_to", optional_number(c.changed_to)}};
}

}  // namespace

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
    if (!g.passed) out << std::string(6, ' ') << g.reason << "\n";
    if (g.prediction) prediction_lines(out, *g.prediction);
    if (!g.passed && !g.hint.empty()) out << std::string(6, ' ') << "hint: " << g.hint << "\n";
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
    json entry = {{"id", g.id},
                  {"kind", kind_name(g.kind)},
                  {"status", g.passed ? "pass" : "fail"},
                  {"points", g.points},
                  {"earned", g.earned},
                  {"reason", g.passed ? json() : json(g.reason)},
                  {"hint", g.passed ? json() : json(g.hint)}};
    if (g.kind == Kind::kPrediction)
      entry["prediction"] = g.prediction ? prediction_json(*g.prediction) : json();
    exercises.push_back(std::move(entry));
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
