// A whole lab run: `fabriclab run NN`.
//
//   clean up after killed runs -> ledger -> topology -> pick the impairment
//   backend -> every selected scenario in order (scenario_runner.h) -> run
//   directory (recordings/FORMAT.md: run.json, metrics.jsonl, session.cast)
//   -> summary table and charts -> tear everything down.
//
// Everything the run creates is owned by objects on this function's stack
// and recorded in the ledger first, so every exit path -- normal, an
// exception, Ctrl-C/SIGTERM (StopSignals) -- removes it, and after a SIGKILL
// `fabriclab cleanup` can.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "netem/impairment.h"
#include "runner/grading/prediction_record.h"
#include "runner/lab/lab_definition.h"

namespace fabriclab::runner {

// How to run a lab (the lab itself is loaded once, by the caller:
// load_lab(), lab_definition.h).
struct LabRunOptions {
  std::vector<std::string> scenarios;  // names to run; empty = all
  netem::BackendKind backend = netem::BackendKind::kAuto;
  bool quick = false;               // the lab was loaded with its [quick] values; run.json says so
  std::string output_dir = "runs";  // run directories go below it
  bool charts_in_terminal = true;
  // --capture: a pcap of the lab link per scenario, in captures/
  // (runner/capture/scenario_capture.h).
  bool capture = false;
  std::string privileges = "root";  // "root" or "rootless", for run.json
  // The run's seed: what `seed:` links pick and what the caller drew the
  // lab's conditions with (draw.h); nullopt = draw one here (a lab that
  // draws nothing).
  std::optional<uint64_t> seed;
  // The student's predictions, taken from `answers_path` before the run
  // (prediction_record.h); recorded in run.json when the lab asks for any.
  std::vector<grading::RecordedPrediction> predictions;
  std::string answers_path;
};

// Runs `lab` (load_lab(path, options.quick): the caller loads it, once, so a
// bad lab file is exit 2 before anything starts). Returns the exit code: 0
// when every scenario completed or ended as the lab expects (stalled/deadline
// are results, not errors), 1 when a scenario failed or the run was
// interrupted. Throws InputError for bad options.
int run_lab(const LabDefinition& lab, const LabRunOptions& options);

// Shared with host mode (runner/host/host_run.h):
// The lab's scenarios named in `names` (all when empty), in the lab's order;
// InputError for a name the lab does not have.
std::vector<const ScenarioDefinition*> select_scenarios(const LabDefinition& lab,
                                                        const std::vector<std::string>& names);
// The impairment backend the scenarios and the lab's fabric-scope settings
// (FabricDefinition::link_settings; host mode has none) need: null when
// nothing impairs anything.
std::unique_ptr<netem::Backend> backend_for(const std::vector<const ScenarioDefinition*>& scenarios,
                                            const std::map<std::string, SettingValue>& fabric_settings,
                                            netem::BackendKind kind, std::string* why);

}  // namespace fabriclab::runner
