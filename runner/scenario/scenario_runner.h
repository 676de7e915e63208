// Runs one scenario of a lab on a built lab network (lab_network.h: this
// machine's namespaces, or this host's part of a host-mode lab):
//   apply the scenario's per-link settings (runner/link/link_setting.h)
//   -> launch one rank of the lab's workload (runner/workload/workload.h)
//   per local rank -> follow their metrics (live progress line, counters)
//   -> watchdog -> stop the ranks -> remove the link settings.
//
// Outcomes (ScenarioOutcome::status, runner/rundir/run_format.h):
//   completed  every rank finished its steps and exited 0
//   stalled    after the first step, no rank completed a step for `stall_s` s
//   deadline   the scenario ran longer than `deadline_s` while progressing
//   failed     a rank exited non-zero (message: which rank, its last words),
//              or ScenarioContext::external_failure reported something (host
//              mode: a lost peer host)
//   interrupted  Ctrl-C / SIGTERM (runner/process/stop_signals.h)
// Whatever the outcome, the ranks are stopped and the impairments removed
// before run_scenario() returns; the student's terminal never hangs.
//
// Not thread-safe; the caller's thread must live for the whole scenario
// (ranks get PR_SET_PDEATHSIG from it).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "netem/impairment.h"
#include "runner/capture/scenario_capture.h"
#include "runner/lab/lab_definition.h"
#include "runner/rundir/run_format.h"

namespace fabriclab::runner {

class Console;
class LabNetwork;
class Ledger;
class Workload;

struct ScenarioContext {
  const LabDefinition* lab = nullptr;
  const LabNetwork* network = nullptr;
  netem::Backend* backend = nullptr;  // null when no scenario's settings need one
  Ledger* ledger = nullptr;
  Console* console = nullptr;
  std::string run_dir;  // rank logs go to run_dir/ranks/<scenario>/
  int master_port = 29500;
  // Polled by the watchdog; a non-empty answer ends the scenario as failed
  // with that message. Empty function = nothing outside the ranks to watch.
  std::function<std::string()> external_failure;
  // Test seams: the program every rank runs (argv[0]; the rest from the
  // workload) and the workload itself (null: the lab's, from the registry).
  std::string executable = "/proc/self/exe";
  const Workload* workload = nullptr;
  // The run's seed (run.json "seed"): resolves `seed:LABEL` links
  // (runner/lab/link_plan.h).
  uint64_t seed = 0;
  // `fabriclab run --capture`: a pcap of the lab link per scenario
  // (runner/capture/scenario_capture.h says which device).
  CaptureOptions capture = {};
  // Host mode with a RoCE workload: the RDMA device on the lab interface
  // (runner/rdma/rxe_device.h). Ranks get it as FABRICLAB_RDMA_DEVICE, and
  // the scenario records the device's counters over its span in one
  // `rdma_counters` event (doc/metrics.md), naming this host `rdma_host`.
  // "" = none.
  std::string rdma_device{};
  std::string rdma_host{};
};

struct ScenarioOutcome {
  rundir::ScenarioStatus status = rundir::ScenarioStatus::kFailed;  // see above; set by the runner
  std::string message;  // why, when not completed
  double started_unix_s = 0;
  double ended_unix_s = 0;
  int64_t steps_planned = 0;
  int64_t steps_completed = 0;  // steps every rank completed
  int ranks_here = 0;  // ranks this runner launched (0: a host the scenario left idle)
  // Where the impairment went, one line per device, e.g. "userspace (NFQUEUE
  // 16000, ...) on arrival at fl-ab12-r1/eth0 from 10.77.0.1: delay 100ms".
  std::vector<std::string> applied;
  // run.json's `impairments`: one entry per setting value and its links, as
  // resolved for this run ({"links": ["r2"], "key": "impair", "spec": ...,
  // "applied": [...]}); and each seed label's pick ({"slow_rank": "r2"}).
  nlohmann::json impairments = nlohmann::json::array();
  std::map<std::string, std::string> link_picks;
  // The ranks' events and the runner's (scenario_start, counters,
  // scenario_end), each with "scenario": name, in time order.
  std::vector<nlohmann::json> events;
  // run.json's scenario `capture` (LinkCapture::to_json, or {"error": ...}
  // when it could not start); null without --capture.
  nlohmann::json capture;
};

ScenarioOutcome run_scenario(const ScenarioContext& context, const ScenarioDefinition& scenario);

}  // namespace fabriclab::runner
