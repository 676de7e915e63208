#include "runner/cli/run_course.h"

#include <chrono>
#include <filesystem>
#include <iostream>
#include <random>

#include "common/input_error.h"
#include "runner/cli/run_preparation.h"
#include "runner/grading/graded_run.h"
#include "runner/lab/draw.h"
#include "runner/process/stop_signals.h"
#include "runner/rundir/run_reader.h"
#include "runner/scenario/course_summary.h"
#include "runner/topology/user_namespace.h"

namespace fabriclab::cli {
namespace {

namespace fs = std::filesystem;

struct PreparedLab {
  std::string file;
  runner::LabDefinition lab;
  runner::LabRunOptions options;
};

// run.json's lesson.held, if the run judged one.
std::optional<bool> lesson_held(const std::string& run_dir) {
  const nlohmann::json run = runner::rundir::read_run_manifest(run_dir);
  const auto lesson = run.find("lesson");
  if (lesson == run.end() || !lesson->contains("held")) return std::nullopt;
  return (*lesson)["held"].get<bool>();
}

// The run directory `run_lab` wrote: the lab's newest, if it is not the one
// that was newest before.
std::string new_run_dir(const std::string& output, const std::string& lab_id,
                        const std::optional<std::string>& before) {
  const auto newest = runner::grading::find_newest_run_dir(output, lab_id);
  return newest && newest != before ? *newest : "";
}

}  // namespace

int run_course(const CourseOptions& course) {
  // Everything the student wrote is read before anything runs: exit 2 first.
  std::vector<PreparedLab> labs;
  for (const std::string& file : course.lab_files) {
    PreparedLab p{file, runner::load_lab(file, course.run.quick), course.run};
    take_predictions(p.lab, "", course.run.output_dir, p.options);
    labs.push_back(std::move(p));
  }
  std::string why;
  const auto mode = runner::enter_rootless_namespace_if_needed(&why);  // before any thread
  std::vector<runner::CourseLabOutcome> outcomes;
  for (size_t i = 0; i < labs.size(); ++i) {
    PreparedLab& p = labs[i];
    p.options.privileges = mode == runner::PrivilegeMode::kRootless ? "rootless" : "root";
    p.options.seed = course.seed ? *course.seed : std::random_device{}();
    runner::CourseLabOutcome outcome;
    outcome.id = p.lab.id;
    outcome.title = p.lab.title;
    std::cout << "\n[lab " << (i + 1) << " of " << labs.size() << "] fabriclab run " << p.lab.id
              << (course.run.quick ? " --quick" : "") << "\n"
              << std::flush;
    const auto before = runner::grading::find_newest_run_dir(course.run.output_dir, p.lab.id);
    const auto started = std::chrono::steady_clock::now();
    try {
      const runner::LabDefinition lab =
          p.lab.draws.empty() ? p.lab
                              : runner::load_lab(p.file, course.run.quick,
                                                 runner::draw_conditions(p.lab.draws, *p.options.seed));
      outcome.exit_code = runner::run_lab(lab, p.options);
    } catch (const InputError& e) {
      outcome.error = e.what();
      std::cout << "error: " << e.what() << "\n";
    }
    outcome.wall_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    outcome.run_dir = new_run_dir(course.run.output_dir, p.lab.id, before);
    if (!outcome.run_dir.empty()) outcome.lesson_held = lesson_held(outcome.run_dir);
    outcomes.push_back(outcome);
    if (runner::StopSignals::stop_requested()) break;
  }
  const bool stopped_early = outcomes.size() < labs.size();
  std::cout << runner::format_course_summary(outcomes, stopped_early) << std::flush;
  for (const auto& o : outcomes)
    if (!o.error.empty() || o.exit_code != 0) return 1;
  return stopped_early ? 1 : 0;
}

}  // namespace fabriclab::cli
