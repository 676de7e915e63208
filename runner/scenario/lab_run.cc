#include "runner/scenario/lab_run.h"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <random>

#include "common/fault_point.h"
#include "common/input_error.h"
#include "netem/backend_probe.h"
#include "runner/cleanup/stale_runs.h"
#include "runner/lab/lab_definition.h"
#include "runner/ledger/ledger.h"
#include "runner/ledger/run_id.h"
#include "runner/link/impair_setting.h"
#include "runner/link/link_setting.h"
#include "runner/process/stop_signals.h"
#include "runner/rdma/softroce_support.h"
#include "runner/scenario/host_preflight.h"
#include "runner/scenario/lab_network_up.h"
#include "runner/scenario/measured_limits.h"
#include "runner/scenario/run_recorder.h"
#include "runner/scenario/scenario_runner.h"
#include "runner/topology/lab_network.h"
#include "runner/topology/network_settings.h"
#include "runner/topology/topology.h"

namespace fabriclab::runner {
namespace {

constexpr int kFirstMasterPort = 29500;

}  // namespace

std::vector<const ScenarioDefinition*> select_scenarios(const LabDefinition& lab,
                                                        const std::vector<std::string>& names) {
  std::vector<const ScenarioDefinition*> selected;
  for (const auto& s : lab.scenarios) {
    if (names.empty() || std::find(names.begin(), names.end(), s.name) != names.end()) {
      selected.push_back(&s);
    }
  }
  for (const std::string& name : names) {
    bool known = false;
    for (const auto& s : lab.scenarios) known = known || s.name == name;
    if (!known) {
      std::string list;
      for (const auto& s : lab.scenarios) list += (list.empty() ? "" : ", ") + s.name;
      throw InputError("--scenario " + name + ": lab " + lab.id + " has no such scenario (" + list +
                       ")");
    }
  }
  return selected;
}

std::unique_ptr<netem::Backend> backend_for(const std::vector<const ScenarioDefinition*>& scenarios,
                                            const std::map<std::string, SettingValue>& fabric_settings,
                                            netem::BackendKind kind, std::string* why) {
  std::vector<std::pair<std::string, SettingValue>> settings(fabric_settings.begin(),
                                                             fabric_settings.end());
  for (const auto* s : scenarios) {
    for (const auto& setting : s->every_link_setting()) settings.push_back(setting);
    // An impairment change (link_fault "impair ...") goes through the same
    // backend, so its words choose it too.
    if (s->link_fault && s->link_fault->kind == LinkFaultKind::kImpair)
      settings.emplace_back(impair_setting().key(), impair_setting().parse(s->link_fault->impair));
  }
  bool needed = false;
  bool only_rates = true;  // every impairment a rate alone: the kernel's tbf shapes it
  for (const auto& [key, value] : settings) {
    const LinkSettingKind& setting = *find_link_setting(key);  // load_lab() checked the key
    if (!setting.needs_backend()) continue;
    needed = true;
    only_rates = only_rates && setting.shapes_without_sch_netem(value);
  }
  if (!needed) return nullptr;
  // Without sch_netem, auto means the userspace backend, which holds one
  // impairment per receiving device: two rates on one lab (a slow link among
  // fast ones) would collide there. The kernel's tbf shapes each rank's own
  // egress, the NIC's place, and costs no CPU of ours.
  if (kind == netem::BackendKind::kAuto && only_rates) {
    const netem::BackendProbe probe = netem::probe_backend(netem::BackendKind::kNetem);
    if (probe.availability == netem::Availability::kNo) {
      if (why)
        *why = "netem backend (auto): every impairment of this run is a rate alone, which the "
               "kernel shapes with tbf on each rank's egress without sch_netem -- " + probe.why;
      return netem::make_backend(netem::BackendKind::kNetem, nullptr);
    }
  }
  return netem::make_backend(kind, why);
}

namespace {

// The lab network, its scenarios, and its removal (every owner below
// unwinds on an exception, so nothing of it outlives this call).
int run_on_lab_network(const LabDefinition& lab,
                       const std::vector<const ScenarioDefinition*>& scenarios,
                       const LabRunOptions& options, const std::string& run_id,
                       RunRecorder& recorder) {
  Console& console = recorder.console();
  LabNetworkUp up(lab, scenarios, options.backend, run_id, console);
  netem::Backend* backend = up.backend();

  // Randomized parts of the lab (a `seed:LABEL` link) and the grader's
  // `from = "seed"` answers both derive from it (runner/lab/seed_pick.h).
  const uint64_t seed = options.seed ? *options.seed : std::random_device{}();
  if (!lab.draws.empty()) {
    // The student's own parameters, drawn by the caller with this seed
    // (draw.h): said first, kept for the grader.
    recorder.manifest()["conditions"] = conditions_json(lab.draws, lab.conditions);
    console.print("Your conditions: " + conditions_text(lab.draws, lab.conditions) +
                  " (drawn by this run's seed; README: \"Your conditions\")\n");
  }
  recorder.manifest().update({{"seed", seed},
                              {"quick", options.quick},
                              {"mode", "namespaces"},
                              {"privileges", options.privileges},
                              {"backend", backend ? backend->name() : "none"},
                              {"backend_why", up.backend_why()},
                              {"fabric_links", up.fabric_links()},
                              {"network",
                               {{"backend", backend ? backend->name() : "none"},
                                {"namespaces", network_settings_json(up.settings())}}}});

  int exit_code = 0;
  int port = kFirstMasterPort;
  MeasuredTimes measured;  // for limits written against an earlier scenario
  for (const ScenarioDefinition* s : scenarios) {
    if (StopSignals::stop_requested()) break;
    recorder.begin_scenario(*s);
    const ResolvedLimits limits = resolve_limits(*s, measured);
    if (!limits.line.empty()) console.print("   " + limits.line + "\n");
    ScenarioContext context{&lab,     &up.network(),  backend, &up.ledger(),
                            &console, recorder.dir(), port++,  /*external_failure=*/{}};
    context.seed = seed;
    context.capture = {options.capture, recorder.dir(), "", {}};
    const ScenarioOutcome outcome = run_scenario(context, limits.scenario);
    if (outcome.status == rundir::ScenarioStatus::kCompleted)
      measured[s->name] = outcome.ended_unix_s - outcome.started_unix_s;
    if (!recorder.end_scenario(*s, outcome)) exit_code = 1;
  }
  return exit_code;  // the ranks are stopped; `up` removes the lab network
}

}  // namespace

int run_lab(const LabDefinition& lab, const LabRunOptions& options) {
  const auto scenarios = select_scenarios(lab, options.scenarios);
  // SoftRoCE cannot send from an interface in a network namespace on
  // Debian's 6.1 (doc/roce.md, section 2): a RoCE workload is host mode's.
  for (const ScenarioDefinition* s : scenarios)
    if (s->workload.param("transport") == "roce")
      throw InputError(lab.path + ": scenario " + s->name +
                       ": its workload has transport = \"roce\", which runs in host mode only "
                       "(rxe cannot send from a lab namespace; doc/roce.md): run it with --hosts "
                       "A,B --iface IF on each host, or use transport = \"tcp\"; " +
                       rdma::roce_needs(lab.id));
  refuse_what_this_host_cannot_run(lab, scenarios);

  StopSignals::install();
  clean_stale_runs_and_warn();

  const std::string run_id = make_run_id();
  RunRecorder recorder(lab, options.output_dir, run_id);  // a full disk stops it here
  recorder.record_predictions(options.predictions, options.answers_path);
  try {
    const int exit_code = run_on_lab_network(lab, scenarios, options, run_id, recorder);
    recorder.finish(options.charts_in_terminal);
    return exit_code;
  } catch (const std::exception& e) {
    // The lab network is already gone; run.json keeps what ended, and why
    // the rest did not (a full disk: run_writer.h keeps room for it).
    recorder.abandon(e.what());
    throw;
  }
}

}  // namespace fabriclab::runner
