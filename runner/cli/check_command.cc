// `fabriclab check NN`: can this machine run lab NN? (runner/scenario/lab_check.h)
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "common/input_error.h"
#include "netem/impairment.h"
#include "runner/cli/commands.h"
#include "runner/cli/roce_lab_check.h"
#include "runner/lab/lab_definition.h"
#include "runner/lab/lab_selection.h"
#include "runner/scenario/host_preflight.h"
#include "runner/scenario/lab_check.h"
#include "runner/topology/user_namespace.h"

namespace fabriclab::cli {

namespace {

struct CheckFlags {
  std::vector<std::string> labs;
  std::vector<std::string> scenarios;
  std::string backend = "auto";
  std::string labs_dir;
  bool quick = false;
};

}  // namespace

void add_check_command(CLI::App& app) {
  auto flags = std::make_shared<CheckFlags>();
  CLI::App* cmd = app.add_subcommand(
      "check",
      "Can this machine run a lab? Builds its network, applies and reads back every "
      "scenario's settings, sends a little traffic over each path, removes it all; no training");
  cmd->add_option("lab", flags->labs, "Lab numbers or folder names, e.g. 02 (repeatable; 'all', or a range: 02-05)")
      ->required();
  cmd->add_option("--scenario", flags->scenarios,
                  "Check only these scenarios: repeatable, or a list: --scenario clean,latency")
      ->delimiter(',');
  cmd->add_option("--backend", flags->backend, "Impairment backend: netem, userspace or auto")
      ->check(CLI::IsMember({"netem", "userspace", "auto"}))
      ->capture_default_str();
  cmd->add_flag("--quick", flags->quick, "Check the lab as `run --quick` would run it");
  cmd->add_option("--labs", flags->labs_dir, "Folder of labs [default: $FABRICLAB_LABS or ./labs]");
  cmd->footer(
      "Exit 0: every scenario applied, read back and carried traffic. Exit 1: one did not (the\n"
      "line names the setting, the kernel's answer and what to do). Exit 2: a bad lab or option.\n"
      "Example: fabriclab check 08    fabriclab check all --backend netem");
  cmd->callback([flags] {
    const std::string labs = flags->labs_dir.empty() ? runner::default_labs_dir() : flags->labs_dir;
    std::vector<std::string> files;
    for (const std::string& lab : flags->labs)
      for (const std::string& file : runner::select_lab_files(labs, lab)) files.push_back(file);
    if (files.size() > 1 && !flags->scenarios.empty())
      throw InputError("--scenario names one lab's scenarios: give one lab with it");
    for (const std::string& file : files) runner::load_lab(file, flags->quick);  // exit 2 first
    std::string why;
    runner::enter_rootless_namespace_if_needed(&why);  // before any thread starts
    int code = 0;
    for (const std::string& file : files) {
      const runner::LabDefinition lab = runner::load_lab(file, flags->quick);
      if (runs_over_roce(lab)) {
        if (check_roce_lab(lab, std::cout) != 0) code = 1;
        continue;
      }
      runner::LabCheckOptions options{file, flags->scenarios,
                                      netem::parse_backend_kind(flags->backend), flags->quick};
      try {
        if (runner::check_lab(options) != 0) code = 1;
      } catch (const runner::HostRefusesLab& e) {
        std::cout << e.what() << "\n";  // the other labs may still run here
        code = 1;
      }
    }
    if (code != 0) throw CommandExit{code};
  });
}

}  // namespace fabriclab::cli
