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

#include <dirent.h>

#include <optional>
#include <string>
#include <vector>

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
// cannot be read. Opens every file for this one reading; the trainer, which
// reads twice a step, keeps a SchedClock.
std::optional<SchedTime> process_sched_time(const std::string& task_dir = "/proc/self/task");

// process_sched_time() with the files kept open between readings: the
// folder, and each thread's schedstat, read with pread at offset 0 (which
// makes the kernel print it afresh). Opening /proc files was most of what the
// per-step accounting cost (doc/benchmarks.md, "The per-step accounting").
// Every reading lists the threads again -- one getdents on the open folder --
// so a thread started since the last one is counted from its first reading,
// as process_sched_time() counts it; a thread that ended has its file closed.
class SchedClock {
 public:
  explicit SchedClock(std::string task_dir = "/proc/self/task");
  ~SchedClock();
  SchedClock(const SchedClock&) = delete;
  SchedClock& operator=(const SchedClock&) = delete;

  // As process_sched_time(task_dir) at this moment.
  std::optional<SchedTime> now();

 private:
  struct Thread {
    std::string tid;  // the entry's name in task_dir
    int fd = -1;      // its schedstat, open
    bool listed = false;
  };
  std::string task_dir_;
  DIR* threads_ = nullptr;
  std::vector<Thread> open_;
};

}  // namespace fabriclab::trainer
