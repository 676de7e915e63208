// Where this process's threads spent their time, from the kernel's own
// accounting: /proc/self/task/*/schedstat holds, per thread, the time it ran
// on a core and the time it sat runnable on a run queue waiting for one
// (run_delay; Documentation/scheduler/sched-stats.rst). Summed over the
// threads (the model's and Gloo's), the delta over one step says how much of
// the step this rank computed, how much it was ready but had no core -- this
// machine's CPU, not the network -- and, the rest of the step, how long it
// was blocked: on a peer, on the wire (lab 10, doc/metrics.md `cpu_ms`,
// `queued_ms`).
//
// Threads that end during a step take their share with them: the delta then
// undercounts. Not thread-safe; one per rank.
#pragma once

#include <optional>
#include <string>

namespace fabriclab::trainer {

struct SchedTime {
  double on_cpu_ms = 0;  // summed over threads: running on a core
  double queued_ms = 0;  // summed over threads: runnable, waiting for a core
};

// One schedstat line, "<on-cpu ns> <run-queue ns> <timeslices>"; nullopt
// when it is not three numbers.
std::optional<SchedTime> parse_schedstat(const std::string& line);

// The sum over `task_dir`'s threads (default: this process's); nullopt
// when the kernel has no schedstat (CONFIG_SCHED_INFO off) or the folder
// cannot be read.
std::optional<SchedTime> process_sched_time(const std::string& task_dir = "/proc/self/task");

}  // namespace fabriclab::trainer
