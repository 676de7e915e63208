// The engine of `fabriclab bench accounting`: what the trainer's per-step
// accounting costs, one way of reading against another, in this process. A
// benchmark, not a test: it prints figures and judges nothing.
//
// What it measures: one step's reads -- two readings, as the trainer takes
// one at the start and one at the end of a step -- of each source, timed
// alone in a loop beside `idle_threads` blocked threads (a 2-rank trainer
// has 4-5 threads: each one's schedstat is read):
//   * schedstat, every file opened per reading (process_sched_time(), what
//     the trainer did before) and kept open (SchedClock, what it does now);
//   * `device`'s counters, /proc/self/net/dev opened per reading
//     (read_device_counters()) and kept open (DeviceCounterReader, the
//     trainer's), one RTM_GETSTATS request over netlink (IFLA_STATS_LINK_64,
//     the kernel's counters for one ifindex), and the four sysfs statistics
//     files kept open. sysfs shows the devices of the namespace it was
//     mounted in, not of the caller's: a rank in a lab namespace cannot use
//     it without mounting its own sysfs, hence only a comparison here.
// Each method runs `rounds` times, in turn, `iterations` steps each; the
// table gives the median and range over the rounds in microseconds per
// step of the reading thread's CPU time (CLOCK_THREAD_CPUTIME_ID: what the
// reads cost the step, even on a busy machine) and of elapsed time (which
// there also counts other processes holding the core), and the CPU median
// as a share of a `step_ms` step (2.4 ms: lab 10's).
//
// Errors: none of its own: a method that cannot read (no such device, no
// schedstat, no sysfs) is a row saying so. Progress to spdlog (info), the
// table to stdout.
#pragma once

#include <string>

namespace fabriclab::runner::bench {

struct AccountingBenchOptions {
  std::string device = "lo";  // whose counters are read (a lab rank reads its eth0's)
  int idle_threads = 4;       // blocked threads beside the reading one
  int iterations = 3000;      // steps (two readings each) per round
  int rounds = 5;             // rounds of each method, in turn
  double step_ms = 2.4;       // the step the cost is a share of (lab 10's)
};

// Runs the benchmark and prints its table to stdout.
void run_accounting_bench(const AccountingBenchOptions& options);

}  // namespace fabriclab::runner::bench
