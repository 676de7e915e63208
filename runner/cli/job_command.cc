// `fabriclab job --metrics PATH [--steps N] -- COMMAND...`: one rank of the
// `command` workload (hidden: the scenario runner launches it in each
// namespace; runner/cli/command_job.h says what it does).
#include <CLI/CLI.hpp>
#include <memory>

#include "runner/cli/command_job.h"
#include "runner/cli/commands.h"

namespace fabriclab::cli {

void add_job_command(CLI::App& app) {
  auto o = std::make_shared<CommandJobOptions>();
  CLI::App* cmd = app.add_subcommand(
      "job", "One rank of a lab's `command` workload (what the runner launches in each namespace)");
  cmd->group("");  // hidden: an internal interface, not a user's command
  cmd->add_option("--metrics", o->metrics_path, "Workload events (doc/metrics.md)")->required();
  cmd->add_option("--steps", o->planned_steps, "Steps the command will report; 0 unknown")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("command", o->argv, "The command line, after --")->required();
  cmd->callback([o] {
    const int code = run_command_job(*o);
    if (code != 0) throw CommandExit{code};
  });
}

}  // namespace fabriclab::cli
