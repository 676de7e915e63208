// `fabriclab run NN` and `fabriclab list`: the labs, as a student meets them.
#include <spdlog/fmt/fmt.h>

#include <iostream>
#include <memory>

#include "common/input_error.h"
#include "netem/impairment.h"
#include "runner/cli/commands.h"
#include "runner/lab/lab_definition.h"
#include "runner/scenario/lab_run.h"
#include "runner/topology/user_namespace.h"

namespace fabriclab::cli {

void add_run_command(CLI::App& app) {
  struct Flags {
    std::string lab;
    std::vector<std::string> scenarios;
    std::string backend = "auto";
    bool quick = false;
    std::string labs_dir;
    std::string output = "runs";
    bool no_charts = false;
  };
  auto flags = std::make_shared<Flags>();
  CLI::App* cmd = app.add_subcommand("run", "Run a lab: every scenario, live view, summary, recording");
  cmd->add_option("lab", flags->lab, "Lab number or folder name, e.g. 02")->required();
  cmd->add_option("--scenario", flags->scenarios, "Run only this scenario (repeatable)");
  cmd->add_option("--backend", flags->backend, "Impairment backend: netem, userspace or auto")
      ->check(CLI::IsMember({"netem", "userspace", "auto"}))
      ->capture_default_str();
  cmd->add_flag("--quick", flags->quick, "Smaller, faster run (the lab's [quick] settings)");
  cmd->add_option("--labs", flags->labs_dir, "Folder of labs [default: $FABRICLAB_LABS or ./labs]");
  cmd->add_option("--output", flags->output, "Run directories go below this folder")
      ->capture_default_str();
  cmd->add_flag("--no-charts", flags->no_charts, "Do not draw charts in the terminal");
  cmd->footer("Example: fabriclab run 02 --quick --scenario clean --scenario latency");
  cmd->callback([flags] {
    runner::LabRunOptions options;
    const std::string labs = flags->labs_dir.empty() ? runner::default_labs_dir() : flags->labs_dir;
    options.lab_file = runner::find_lab_file(labs, flags->lab);
    options.scenarios = flags->scenarios;
    options.backend = netem::parse_backend_kind(flags->backend);
    options.quick = flags->quick;
    options.output_dir = flags->output;
    options.charts_in_terminal = !flags->no_charts;
    runner::load_lab(options.lab_file, options.quick);  // bad lab file: exit 2 before anything
    // Must come before anything starts a thread (the kernel requires it).
    std::string why;
    const auto mode = runner::enter_rootless_namespace_if_needed(&why);
    options.privileges = mode == runner::PrivilegeMode::kRootless ? "rootless" : "root";
    const int code = runner::run_lab(options);
    if (code != 0) throw CommandExit{code};
  });
}

void add_list_command(CLI::App& app) {
  auto labs_dir = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("list", "List the labs");
  cmd->add_option("--labs", *labs_dir, "Folder of labs [default: $FABRICLAB_LABS or ./labs]");
  cmd->callback([labs_dir] {
    const std::string labs = labs_dir->empty() ? runner::default_labs_dir() : *labs_dir;
    for (const std::string& file : runner::list_lab_files(labs)) {
      const runner::LabDefinition lab = runner::load_lab(file);
      std::cout << fmt::format("{}  {:<40} {} scenario(s), {} rank(s)\n    {}\n", lab.id, lab.title,
                               lab.scenarios.size(), lab.ranks, lab.summary);
    }
  });
}

}  // namespace fabriclab::cli
