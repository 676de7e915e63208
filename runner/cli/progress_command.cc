// `fabriclab progress`: every lab in order with the student's newest run of
// it, that run's grade and what is left (runner/grading/lab_progress.h).
// A broken lab or a damaged run shows on its own lab's lines and the listing
// goes on: exit 0 whatever the labs' states (the listing is the answer);
// exit 2 only for a --labs folder that holds no labs folder at all.
#include <iostream>
#include <memory>

#include "runner/cli/commands.h"
#include "runner/grading/lab_progress.h"
#include "runner/grading/progress_output.h"
#include "runner/lab/lab_definition.h"

namespace fabriclab::cli {

void add_progress_command(CLI::App& app) {
  struct Flags {
    std::string runs_dir = "runs";
    std::string labs_dir;
    bool json = false;
  };
  auto flags = std::make_shared<Flags>();
  CLI::App* cmd = app.add_subcommand(
      "progress",
      "Where you stand: each lab with your newest run (when, full or --quick, whether its "
      "lesson held), its grade from that run's answers.toml, and what is left");
  cmd->add_option("--runs", flags->runs_dir, "Folder holding your run directories")
      ->capture_default_str();
  cmd->add_option("--labs", flags->labs_dir,
                  "Folder of labs [default: $FABRICLAB_LABS, else the labs/ this build came with]");
  cmd->add_flag("--json", flags->json,
                "Print one JSON object for scripts (format fabriclab-progress, README.md)");
  cmd->footer(
      "A lab's last run is its newest RUNS/NN-*/ holding a run.json, graded as `fabriclab grade "
      "NN` grades it.\nExit 0 even when a run is damaged or an answer fails (they show on their "
      "lab's lines);\n2 when --labs is not a folder of labs.");
  cmd->callback([flags] {
    const std::string labs = flags->labs_dir.empty() ? runner::default_labs_dir() : flags->labs_dir;
    const auto course = runner::grading::lab_progress(labs, flags->runs_dir);
    if (flags->json)
      std::cout << runner::grading::progress_json(course).dump(2) << "\n";
    else
      std::cout << runner::grading::format_progress_text(course);
  });
}

}  // namespace fabriclab::cli
