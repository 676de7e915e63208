// Workloads: what every rank of a scenario runs, looked up by the name a
// lab.toml gives in `[workload] kind` (labs/SCHEMA.md, "Workloads").
//
//   train            the data-parallel trainer (`fabriclab train`, trainer/)
//   allreduce        nccl-tests' all_reduce_perf loop alone (allreduce_workload.h)
//   command          any launcher-aware program, e.g. a PyTorch DDP script
//                    (command_workload.h)
//
// A workload is one file in this folder implementing Workload, plus one line
// in workload_registry.cc (an explicit table, not self-registration: a
// static library drops objects nothing references). The scenario runner
// (runner/scenario/) knows only this interface.
//
// Contract with the scenario runner: every rank is launched as
// `fabriclab <rank_command()>` with torchrun's environment
// (runner/process/launch_spec.h), writes metrics events to the path it is
// given (doc/metrics.md: a `start` event with `steps`, one `step` event per
// completed step, a `final` event) and exits 0 when done. The watchdog
// judges progress by `step` events only, so any workload that writes them
// gets the live view, stall detection and the report.
//
// Thread safety: entries are immutable singletons; safe from any thread.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace fabriclab::runner {

// The type a workload parameter must have in lab.toml. kRank: a rank number,
// or "seed:LABEL" -- the rank seed_pick(seed, LABEL, ranks) draws for the run
// (runner/lab/seed_pick.h), resolved when the scenario launches its ranks.
// kArgv: a non-empty array of strings (a command line), kept as its JSON
// text (command_workload.h's argv_of() reads it back).
enum class ParamKind { kInteger, kNumber, kString, kRank, kArgv };

// A lab's workload as lab.toml states it; params validated against the
// kind's params() by load_lab() and kept as text ("128", "0.050000").
struct WorkloadDefinition {
  std::string kind = "train";
  std::map<std::string, std::string> params;
  // The parameter's text, or `fallback` when the lab does not set it.
  std::string param(const std::string& key, const std::string& fallback = "") const;
};

class Workload {
 public:
  virtual ~Workload() = default;
  virtual const char* name() const = 0;
  // The parameters lab.toml may set, with their types.
  virtual const std::map<std::string, ParamKind>& params() const = 0;
  // Arguments after the `fabriclab` executable for one rank; `metrics_path`
  // is where the rank must write its events.
  virtual std::vector<std::string> rank_command(const WorkloadDefinition& workload,
                                                const std::string& metrics_path) const = 0;
  // Steps each rank will report when the lab states them; 0 = known only
  // once the ranks' start events arrive.
  virtual int64_t planned_steps(const WorkloadDefinition& workload) const = 0;
  // Parameters of the model it trains (for from = "lab" exercises: params,
  // grad_bytes); throws InputError when it has no model.
  virtual int64_t model_params(const WorkloadDefinition& workload) const = 0;
  // Checks the parameters together (ranges, one against another) once each
  // has its type; throws std::invalid_argument with a message fit to follow
  // "key 'workload': ". Default: nothing to check.
  virtual void check(const WorkloadDefinition& workload) const { (void)workload; }
};

// The entry named `kind`; std::invalid_argument naming the known kinds.
const Workload& find_workload(const std::string& kind);
std::vector<std::string> workload_kinds();

}  // namespace fabriclab::runner
