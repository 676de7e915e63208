// `fabriclab grade NN`: grades lab NN's exercises against the student's own
// recording and answers file (runner/grading/, labs/SCHEMA.md "Exercises").
// Exit 0 when every exercise passes, 1 when any fails, 2 for bad input.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "common/input_error.h"
#include "runner/cli/commands.h"
#include "runner/grading/answers.h"
#include "runner/grading/grade_output.h"
#include "runner/grading/graded_run.h"
#include "runner/grading/grader.h"
#include "runner/grading/lesson_verdict.h"
#include "runner/lab/exercise.h"
#include "runner/lab/lab_definition.h"

namespace fabriclab::cli {

namespace {

namespace fs = std::filesystem;
namespace grading = runner::grading;

struct GradeOptions {
  std::string lab;
  std::string recording;  // default: newest run of the lab under runs_dir
  std::string answers;    // default: grading::default_answers_path()
  std::string labs_dir = runner::default_labs_dir();
  std::string runs_dir = "runs";
  bool json = false;
  bool init = false;
  bool force = false;
};

void write_template(const runner::LabDefinition& lab, const std::string& recording,
                    const std::string& path, bool force) {
  if (fs::exists(path) && !force) {
    throw InputError(path +
                     ": already exists; not overwriting your answers (use --force to replace it)");
  }
  const std::string text = grading::answers_template(lab, recording);
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary);
    out << text;
    if (!out.flush()) throw InputError(path + ": cannot write the answers template");
  }
  fs::rename(temporary, path);
  const bool predictions =
      std::any_of(lab.exercises.begin(), lab.exercises.end(),
                  [](const runner::Exercise& e) { return e.kind == runner::Kind::kPrediction; });
  std::cout << "wrote " << path << " (" << lab.exercises.size() << " exercises); ";
  if (recording.empty()) {
    std::cout << (predictions ? "write your predictions in it, then `fabriclab run " + lab.id +
                                    "` records them; answer the rest after the run"
                              : "answer it after `fabriclab run " + lab.id + "`")
              << ", then `fabriclab grade " << lab.id << "`\n";
  } else {
    std::cout << "fill it in, then run `fabriclab grade " << lab.id << "`\n";
  }
}

void run_grade(const GradeOptions& o) {
  const runner::LabDefinition lab_file =
      runner::load_lab(runner::find_lab_file(o.labs_dir, o.lab));
  if (lab_file.exercises.empty())
    throw InputError(lab_file.path + ": lab " + lab_file.id + " has no [[exercise]] tables; expected at least one to grade");
  // --init before the first run: the lab's own answers file, for the
  // predictions `fabriclab run` records (labs/SCHEMA.md, "Predictions").
  if (o.init && o.recording.empty() && !grading::find_newest_run_dir(o.runs_dir, lab_file.id)) {
    const std::string path =
        o.answers.empty() ? grading::lab_answers_path(o.runs_dir, lab_file.id) : o.answers;
    fs::create_directories(fs::path(path).parent_path().empty() ? fs::path(".")
                                                                : fs::path(path).parent_path());
    write_template(lab_file, "", path, o.force);
    return;
  }
  const std::string dir =
      o.recording.empty() ? grading::newest_run_dir(o.runs_dir, lab_file.id) : o.recording;
  const grading::GradedRun rec = grading::load_graded_run(dir);
  if (rec.lab_id != lab_file.id) {
    throw InputError(dir + ": a recording of lab " + rec.lab_id + ", not of lab " + lab_file.id);
  }
  // The lab as this run drew it: the student's own conditions (draw.h).
  const runner::LabDefinition lab = grading::lab_for_run(lab_file, rec);
  if (o.init) {
    const std::string path =
        o.answers.empty() ? (fs::path(dir) / "answers.toml").string() : o.answers;
    write_template(lab, dir, path, o.force);
    // The file written before the run (predictions) is now shadowed: say so,
    // so answers written there are not silently left ungraded.
    const std::string before_run = grading::lab_answers_path(o.runs_dir, lab.id);
    if (o.answers.empty() && fs::exists(before_run))
      std::cout << "note: " << before_run << " (written before the run) is still there; `fabriclab grade "
                << lab.id << "` now reads " << path << " first. Answer in one of them: copy what you "
                << "wrote there across, or grade it with --answers " << before_run
                << ". Your predictions are graded from the run either way.\n";
    return;
  }
  const std::string answers_path =
      o.answers.empty() ? grading::default_answers_path(dir, o.runs_dir, lab.id) : o.answers;
  const grading::Answers answers = grading::load_answers(answers_path, lab);
  grading::GradeReport report = grading::grade(lab, rec, answers);
  report.answers_path = answers_path;
  // The lesson judged on the same recording: a student whose run did not
  // show it learns so beside the grade (the run said so when it ended).
  const grading::LessonJudgement lesson = grading::judge_lesson(lab, rec);
  if (o.json) {
    nlohmann::json out = grading::grade_json(report);
    if (!lab.lesson.empty()) out["lesson"] = grading::lesson_json(lesson);
    std::cout << out.dump(2) << "\n";
  } else {
    std::cout << grading::format_grade_text(report);
    if (!lab.lesson.empty()) std::cout << "\n" << grading::lesson_text(lesson, lab.dir + "/README.md");
  }
  std::cout.flush();
  if (!report.all_passed()) throw CommandExit{kExitFailure};
}

}  // namespace

void add_grade_command(CLI::App& app) {
  auto* command = app.add_subcommand("grade",
                                     "Grade a lab's exercises against your own recording and "
                                     "answers file: PASS/FAIL per exercise with points "
                                     "and, on failure, a hint; exit 0 only when all pass");
  auto o = std::make_shared<GradeOptions>();
  command->add_option("lab", o->lab, "Lab number, e.g. 02")->required();
  command->add_option("--recording", o->recording,
                      "Run directory to grade (default: the newest runs/NN-*/ holding a run.json)");
  command->add_option("--answers", o->answers,
                      "Answers file, TOML (default: RECORDING/answers.toml, else "
                      "RUNS/NN-answers.toml when that exists)");
  command->add_flag("--json", o->json,
                    "Print one JSON object for autograders (labs/SCHEMA.md, \"Grading output\")");
  auto* init = command->add_flag("--init", o->init,
                                 "Write an answers template with the prompts as comments, then "
                                 "stop (no recording yet: RUNS/NN-answers.toml, for predictions)");
  command->add_flag("--force", o->force, "With --init: replace an existing answers file")
      ->needs(init);
  command->add_option(
      "--labs", o->labs_dir,
      "Folder holding the labs (default: $FABRICLAB_LABS, else the labs/ this build came with)");
  command->add_option("--runs", o->runs_dir, "Folder holding run directories (default: runs)");
  command->callback([o] { run_grade(*o); });
}

}  // namespace fabriclab::cli
