// `fabriclab run NN`: a lab, as a student meets it.
// `run` builds namespaces on this machine, or with --hosts runs its part of a
// lab spread over several machines (host mode, runner/host/host_run.h).
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <random>

#include "common/input_error.h"
#include "netem/impairment.h"
#include "runner/cli/commands.h"
#include "runner/grading/answers.h"
#include "runner/grading/prediction_record.h"
#include "runner/host/host_roster.h"
#include "runner/host/host_run.h"
#include "runner/lab/lab_definition.h"
#include "runner/scenario/lab_run.h"
#include "runner/topology/user_namespace.h"

namespace fabriclab::cli {

namespace {

// `path` is, or can be made, a folder this process may write in: its
// nearest existing ancestor is a writable directory.
void require_writable_folder(const std::string& flag, const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code error;
  fs::path existing = fs::absolute(path, error);
  while (!existing.empty() && !fs::exists(existing, error) && existing != existing.parent_path())
    existing = existing.parent_path();
  if (!fs::is_directory(existing, error))
    throw InputError(flag + " " + path + ": " + existing.string() +
                     " is not a directory (expected a folder for the run directories)");
  if (::access(existing.c_str(), W_OK) != 0)
    throw InputError(flag + " " + path + ": cannot write in " + existing.string() + " (" +
                     std::strerror(errno) + ")");
}

// The student's predictions (labs/SCHEMA.md, "Predictions"), taken now,
// before anything starts: from --answers FILE, else from the lab's own
// OUTPUT/NN-answers.toml when the lab asks for predictions and the file
// exists. A malformed file is exit 2 here; a missing prediction is not an
// error (the run says so and grading gives it nothing).
void take_predictions(const runner::LabDefinition& lab, const std::string& answers_flag,
                      const std::string& output, runner::LabRunOptions& options) {
  const bool asks = std::any_of(lab.exercises.begin(), lab.exercises.end(), [](const auto& e) {
    return e.kind == runner::Kind::kPrediction;
  });
  options.answers_path =
      answers_flag.empty() ? runner::grading::lab_answers_path(output, lab.id) : answers_flag;
  if (answers_flag.empty() && (!asks || !std::filesystem::exists(options.answers_path))) return;
  const runner::grading::Answers answers = runner::grading::load_answers(options.answers_path, lab);
  const double now = std::chrono::duration<double>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
  options.predictions = runner::grading::take_predictions(lab, answers, now);
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
  };
  auto flags = std::make_shared<Flags>();
  CLI::App* cmd =
      app.add_subcommand("run", "Run a lab: every scenario, live view, summary, recording");
  cmd->add_option("lab", flags->lab, "Lab number or folder name, e.g. 02")->required();
  cmd->add_option("--scenario", flags->scenarios,
                  "Run only these scenarios: repeatable, or a list: --scenario clean,latency")
      ->delimiter(',');
  cmd->add_option("--backend", flags->backend, "Impairment backend: netem, userspace or auto")
      ->check(CLI::IsMember({"netem", "userspace", "auto"}))
      ->capture_default_str();
  cmd->add_flag("--quick", flags->quick, "Smaller, faster run (the lab's [quick] settings)");
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
                                "Run the same command on every host")
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
      cmd->add_option("--iface", flags->iface, "Host mode: this host's lab interface (impaired)")
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
      "           fabriclab run 05 --hosts A,B,C,D --iface eth1   (on all four)");
  cmd->callback([flags, host_options, seed] {
    const bool host_mode = !flags->hosts.empty() || !flags->hosts_file.empty();
    for (const CLI::Option* option : host_options) {
      if (option->count() > 0 && !host_mode)
        throw InputError(option->get_name() +
                         " is a host-mode option: it needs --hosts or --hosts-file");
    }
    if (host_mode && seed->count() > 0)
      throw InputError("--seed: in host mode the lead draws the run's seed (expected --seed on a run without --hosts)");
    if (host_mode && flags->iface.empty())
      throw InputError(std::string(flags->hosts.empty() ? "--hosts-file" : "--hosts") +
                       ": host mode needs --iface, this host's lab interface (ip -br addr)");
    runner::LabRunOptions options;
    const std::string labs = flags->labs_dir.empty() ? runner::default_labs_dir() : flags->labs_dir;
    const std::string lab_file = runner::find_lab_file(labs, flags->lab);
    options.scenarios = flags->scenarios;
    options.backend = netem::parse_backend_kind(flags->backend);
    options.quick = flags->quick;
    options.output_dir = flags->output;
    options.charts_in_terminal = !flags->no_charts;
    options.capture = flags->capture;
    // Loaded once, here: a bad lab file is exit 2 before anything starts.
    runner::LabDefinition lab = runner::load_lab(lab_file, options.quick);
    require_writable_folder("--output", flags->output);
    take_predictions(lab, flags->answers, flags->output, options);
    if (host_mode) {
      // A real interface: no user namespace (it would hide the interface).
      runner::host::HostRunOptions host_options{
          options,
          flags->hosts.empty() ? runner::host::read_host_file(flags->hosts_file)
                               : runner::host::parse_host_list(flags->hosts),
          flags->iface,
          flags->host_index,
          flags->ranks_per_host,
          flags->port};
      const int code = runner::host::run_lab_on_hosts(lab, host_options);
      if (code != 0) throw CommandExit{code};
      return;
    }
    // The seed draws the student's conditions (draw.h) before anything
    // runs; host mode runs every draw's first choice (the lead's seed is
    // drawn later, on the lead).
    options.seed = seed->count() > 0 ? flags->seed : std::random_device{}();
    if (!lab.draws.empty())
      lab = runner::load_lab(lab_file, options.quick, runner::draw_conditions(lab.draws, *options.seed));
    // Must come before anything starts a thread (the kernel requires it).
    std::string why;
    const auto mode = runner::enter_rootless_namespace_if_needed(&why);
    options.privileges = mode == runner::PrivilegeMode::kRootless ? "rootless" : "root";
    const int code = runner::run_lab(lab, options);
    if (code != 0) throw CommandExit{code};
  });
}

}  // namespace fabriclab::cli
