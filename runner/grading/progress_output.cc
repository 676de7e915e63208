#include "runner/grading/progress_output.h"

#include <spdlog/fmt/fmt.h>

#include <ctime>

namespace fabriclab::runner::grading {
namespace {

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& word : words) out += (out.empty() ? "" : ", ") + word;
  return out;
}

std::string run_text(const LabRunSummary& run) {
  std::string lesson;
  if (run.lesson_held) lesson = *run.lesson_held ? ", lesson held" : ", lesson NOT held";
  return fmt::format("{}, {}{}  ({})", utc_minute(run.started_unix_s),
                     run.quick ? "--quick run" : "full run", lesson, run.dir);
}

std::string grade_text(const LabProgress& lab) {
  if (lab.grade) return fmt::format("{}/{} points", lab.grade->score, lab.grade->max_score);
  if (!lab.problem.empty()) return "answers.toml does not read: " + lab.problem;
  return fmt::format("not answered yet (0/{} points; fabriclab grade {} --init)", lab.max_score,
                     lab.id);
}

}  // namespace

std::string utc_minute(double unix_s) {
  if (unix_s <= 0) return "time unknown";
  const std::time_t t = static_cast<std::time_t>(unix_s);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M UTC", &tm);
  return text;
}

std::string left_text(const LabProgress& lab) {
  switch (lab.state) {
    case LabState::kLabError: return "lab.toml does not load";
    case LabState::kNotRun: return "not run (fabriclab run " + lab.id + ")";
    case LabState::kDamaged: return "damaged: run it again (fabriclab run " + lab.id + ")";
    case LabState::kNotGraded: return "run, not graded";
    case LabState::kFailing:
      return fmt::format("{} exercise{} failing: {}", lab.grade->failing.size(),
                         lab.grade->failing.size() == 1 ? "" : "s", joined(lab.grade->failing));
    case LabState::kDone: return "done";
  }
  return "";
}

std::string format_progress_text(const CourseProgress& course) {
  std::string out;
  for (const LabProgress& lab : course.labs) {
    out += fmt::format("{}  {:<48} {}\n", lab.id, lab.title, left_text(lab));
    if (!lab.summary.empty()) out += "    " + lab.summary + "\n";
    switch (lab.state) {
      case LabState::kLabError: out += "    error:    " + lab.problem + "\n"; break;
      case LabState::kNotRun: break;
      case LabState::kDamaged:
        out += "    last run: damaged: " + lab.problem + "\n";
        break;
      default:
        out += "    last run: " + run_text(*lab.run) + "\n";
        if (lab.exercises > 0) out += "    grade:    " + grade_text(lab) + "\n";
    }
  }
  out += fmt::format("\nTotal: {} of {} labs done, {}/{} points\n", course.done(),
                     course.labs.size(), course.score(), course.max_score());
  return out;
}

nlohmann::json progress_json(const CourseProgress& course) {
  using nlohmann::json;
  json labs = json::array();
  for (const LabProgress& lab : course.labs) {
    json run = nullptr;
    if (lab.run) {
      run = {{"dir", lab.run->dir},
             {"started_unix_s", lab.run->started_unix_s},
             {"quick", lab.run->quick},
             {"lesson_held", lab.run->lesson_held ? json(*lab.run->lesson_held) : json(nullptr)}};
    }
    json grade = nullptr;
    if (lab.grade) {
      grade = {{"answers", lab.grade->answers_path},
               {"score", lab.grade->score},
               {"max_score", lab.grade->max_score},
               {"failing", lab.grade->failing}};
    }
    labs.push_back({{"id", lab.id},
                    {"title", lab.title},
                    {"summary", lab.summary},
                    {"state", state_word(lab.state)},
                    {"left", left_text(lab)},
                    {"problem", lab.problem.empty() ? json(nullptr) : json(lab.problem)},
                    {"max_score", lab.max_score},
                    {"exercises", lab.exercises},
                    {"run", run},
                    {"grade", grade}});
  }
  return {{"format", "fabriclab-progress"},
          {"version", 1},
          {"labs_dir", course.labs_dir},
          {"runs_dir", course.runs_dir},
          {"labs", labs},
          {"total",
           {{"labs", course.labs.size()},
            {"done", course.done()},
            {"score", course.score()},
            {"max_score", course.max_score()}}}};
}

}  // namespace fabriclab::runner::grading
