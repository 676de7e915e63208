// `fabriclab run NN`: a lab, as a student meets it; `run all` or a range
// (`run 02-05`): the course, lab after lab (run_course.h). `run` builds
// namespaces on this machine, or with --hosts runs its part of a lab spread
// over several machines (host mode, runner/host/host_run.h).

#include <cstdlib>
#include <memory>
#include <random>

#include "common/input_error.h"
#include "common/slurm_step.h"
#include "netem/impairment.h"
#include "runner/cli/commands.h"
#include "runner/cli/run_course.h"
#include "runner/cli/run_preparation.h"
#include "runner/cli/workload_choice.h"
#include "runner/host/host_roster.h"
#include "runner/host/host_run.h"
#include "runner/lab/lab_definition.h"
#include "runner/lab/lab_selection.h"
#include "runner/scenario/lab_run.h"
#include "runner/topology/user_namespace.h"

namespace fabriclab::cli {

namespace {

// `--hosts slurm`: srun's step, with its complaints as exit 2.
SlurmStep slurm_step_or_input_error() {
  try {
    return read_slurm_step([](const char* name) { return std::getenv(name); });
  } catch (const std::invalid_argument& e) {
    throw InputError(e.what());
  }
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : ",") + name;
  return out;
}

}  // namespace

void add_run_command(CLI::App& app) {
  struct Flags {
    std::string lab;
    std::vector<std::string> scenarios;
    std::string backend = "auto";
    bool quick = false;
    std::string labs_dir;
    std::string answers;
    std::string output = "runs";
    bool no_charts = false;
    std::string hosts;
    std::string hosts_file;
    std::string iface;
    int host_index = -1;
    int ranks_per_host = 0;
    int port = 29400;
    uint64_t seed = 0;
    bool capture = false;
    std::string workload;
  };
  auto flags = std::make_shared<Flags>();
  CLI::App* cmd =
      app.add_subcommand("run", "Run a lab: every scenario, live view, summary, recording");
  cmd->add_option("lab", flags->lab,
                  "Lab number or folder name, e.g. 02; 'all' for every lab in order, or a "
                  "range, e.g. 02-05")
      ->required();
  cmd->add_option("--scenario", flags->scenarios,
                  "Run only these scenarios: repeatable, or a list: --scenario clean,latency")
      ->delimiter(',');
  cmd->add_option("--backend", flags->backend, "Impairment backend: netem, userspace or auto")
      ->check(CLI::IsMember({"netem", "userspace", "auto"}))
      ->capture_default_str();
  cmd->add_flag("--quick", flags->quick, "Smaller, faster run (the lab's [quick] settings)");
  cmd->add_option("--workload", flags->workload,
                  "ddp: the lab's train workload as the same job in plain PyTorch DDP "
                  "(trainer/python/ddp_train.py, through the command workload)")
      ->check(CLI::IsMember({"train", "ddp"}));
  cmd->add_option("--labs", flags->labs_dir, "Folder of labs [default: $FABRICLAB_LABS or ./labs]");
  cmd->add_option("--output", flags->output, "Run directories go below this folder")
      ->capture_default_str();
  cmd->add_flag("--no-charts", flags->no_charts, "Do not draw charts in the terminal");
  cmd->add_flag("--capture", flags->capture,
                "Write each scenario's lab-link packets (headers only, 64 MiB at most) to "
                "captures/<scenario>.pcap in the run directory: read them with tshark -r");
  auto* seed = cmd->add_option("--seed", flags->seed,
                               "The run's seed (run.json `seed`) instead of a random one: it draws "
                               "your conditions and ranks, so a seed repeats a run's draw");
  cmd->add_option("--answers", flags->answers,
                  "Answers file whose predictions the run records before its scenarios start "
                  "[default: OUTPUT/NN-answers.toml, from `fabriclab grade NN --init`]");
  auto* hosts = cmd->add_option("--hosts", flags->hosts,
                                "Host mode: the lab hosts' addresses, A,B[,...]; the first leads. "
                                "Run the same command on every host. 'slurm': the hosts of the "
                                "srun step this task runs in, and this host's place from "
                                "SLURM_NODEID")
                    ->group("Host mode");
  cmd->add_option("--hosts-file", flags->hosts_file,
                  "Host mode: the lab hosts from a file, one address a line (# comments), "
                  "the lead first; instead of --hosts")
      ->excludes(hosts)
      ->group("Host mode");
  // The other host-mode options need --hosts or --hosts-file: checked in
  // the callback (CLI11's needs() takes one option).
  std::vector<CLI::Option*> host_options;
  host_options.push_back(
      cmd->add_option("--iface", flags->iface,
                      "Host mode: this host's lab interface (impaired) [default: the one holding "
                      "this host's address in the host list]")
          ->group("Host mode"));
  host_options.push_back(
      cmd->add_option("--host-index", flags->host_index,
                      "Host mode: this host's place in --hosts [default: found from its addresses]")
          ->check(positive_number(true))
          ->group("Host mode"));
  host_options.push_back(
      cmd->add_option("--ranks-per-host", flags->ranks_per_host,
                      "Host mode: ranks on each host [default: the lab's ranks / hosts]")
          ->check(positive_number())
          ->group("Host mode"));
  host_options.push_back(
      cmd->add_option("--port", flags->port,
                      "Host mode: the lead's control store port; scenario i's rendezvous uses "
                      "port+1+i")
          ->check(CLI::Range(1, 65000))
          ->capture_default_str()
          ->group("Host mode"));
  cmd->footer(
      "Example: fabriclab run 02 --quick --scenario clean --scenario latency\n"
      "Host mode: fabriclab run 02 --hosts 192.168.56.11,192.168.56.12 --iface eth1   (on both)\n"
      "           fabriclab run 05 --hosts A,B,C,D --iface eth1   (on all four)\n"
      "Under Slurm: srun --nodes 4 --ntasks-per-node 1 fabriclab run 05 --hosts slurm\n"
      "The course: fabriclab run all   (every lab in order, then one table: how each ended,\n"
      "its time and its lesson)   fabriclab run 02-05 --quick");
  cmd->callback([flags, host_options, seed] {
    const bool host_mode = !flags->hosts.empty() || !flags->hosts_file.empty();
    for (const CLI::Option* option : host_options) {
      if (option->count() > 0 && !host_mode)
        throw InputError(option->get_name() +
                         " is a host-mode option: it needs --hosts or --hosts-file");
    }
    if (host_mode && seed->count() > 0)
      throw InputError("--seed: in host mode the lead draws the run's seed (expected --seed on a run without --hosts)");
    runner::LabRunOptions options;
    const std::string labs = flags->labs_dir.empty() ? runner::default_labs_dir() : flags->labs_dir;
    options.backend = netem::parse_backend_kind(flags->backend);
    options.quick = flags->quick;
    options.output_dir = flags->output;
    options.charts_in_terminal = !flags->no_charts;
    options.capture = flags->capture;
    if (runner::selects_many_labs(flags->lab)) {
      if (!flags->scenarios.empty())
        throw InputError("--scenario names one lab's scenarios (expected one lab with it, not '" +
                         flags->lab + "')");
      if (!flags->workload.empty())
        throw InputError("--workload replaces one lab's workload (expected one lab with it, not '" +
                         flags->lab + "')");
      if (!flags->answers.empty())
        throw InputError("--answers is one lab's answers file (expected one lab with it, not '" +
                         flags->lab + "'; each lab reads OUTPUT/NN-answers.toml)");
      if (host_mode)
        throw InputError("'" + flags->lab + "' runs the course on this machine (expected one lab "
                         "with --hosts: start each lab on every host)");
      CourseOptions course{runner::select_lab_files(labs, flags->lab), options, std::nullopt};
      if (seed->count() > 0) course.seed = flags->seed;
      require_writable_folder("--output", flags->output);
      const int code = run_course(course);
      if (code != 0) throw CommandExit{code};
      return;
    }
    const std::string lab_file = runner::find_lab_file(labs, flags->lab);
    options.scenarios = flags->scenarios;
    // Loaded once, here: a bad lab file is exit 2 before anything starts.
    runner::LabDefinition lab = runner::load_lab(lab_file, options.quick);
    choose_workload(lab, flags->workload);
    require_writable_folder("--output", flags->output);
    take_predictions(lab, flags->answers, flags->output, options);
    if (host_mode) {
      // A real interface: no user namespace (it would hide the interface).
      runner::host::HostRunOptions host_options{options, {}, flags->iface, flags->host_index,
                                                flags->ranks_per_host, flags->port};
      if (flags->hosts == "slurm") {
        const SlurmStep step = slurm_step_or_input_error();
        host_options.hosts = runner::host::parse_host_list(joined(step.hosts));
        if (host_options.host_index < 0) host_options.host_index = step.index;
      } else {
        host_options.hosts = flags->hosts.empty() ? runner::host::read_host_file(flags->hosts_file)
                                                  : runner::host::parse_host_list(flags->hosts);
      }
      if (host_options.iface.empty())
        host_options.iface =
            runner::host::default_lab_interface(host_options.hosts, host_options.host_index);
      const int code = runner::host::run_lab_on_hosts(lab, host_options);
      if (code != 0) throw CommandExit{code};
      return;
    }
    // The seed draws the student's conditions (draw.h) before anything
    // runs; host mode runs every draw's first choice (the lead's seed is
    // drawn later, on the lead).
    options.seed = seed->count() > 0 ? flags->seed : std::random_device{}();
    if (!lab.draws.empty()) {
      lab = runner::load_lab(lab_file, options.quick, runner::draw_conditions(lab.draws, *options.seed));
      choose_workload(lab, flags->workload);
    }
    // Must come before anything starts a thread (the kernel requires it).
    std::string why;
    const auto mode = runner::enter_rootless_namespace_if_needed(&why);
    options.privileges = mode == runner::PrivilegeMode::kRootless ? "rootless" : "root";
    const int code = runner::run_lab(lab, options);
    if (code != 0) throw CommandExit{code};
  });
}

}  // namespace fabriclab::cli
