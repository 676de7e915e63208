// The engine of `fabriclab bench impair`: how faithful, and how fast, is
// each impairment backend available here? A benchmark, not a test: it
// prints figures, and a verdict per row, but fails only when it cannot
// measure.
//
// On a two-rank lab (impair_lab.h), for each backend (netem when the kernel
// has sch_netem, userspace when NFQUEUE works) it measures, with real
// clients:
//   1. added RTT: `ping` from rank 0 to rank 1 with the impairment on the
//      link, minus the bare link's median RTT, at p50 and p99, against what
//      netem's algorithm implies for the spec (the quantiles of 200,000 draws
//      of netem/impairment_model.h, which follows sch_netem.c).
//      Target: |error at p50| <= max(0.5 ms, 2%);
//   2. loss: `ping -c N -i 0.0002` (N >= 10,000); the measured rate must lie
//      in the 95% binomial interval around the configured one (so about one
//      row in twenty misses by chance -- that is what 95% means);
//   3. TCP throughput: `iperf3` through the backend with an empty spec (every
//      packet passes the impairment machinery, none is delayed) against the
//      bare link, alternating rounds, medians. Target: >= 0.8x;
//   4. rate: `iperf3` TCP goodput through `rate 100mbit` and `rate 1gbit`
//      against the configured rate. Target: within 5%. Without sch_netem the
//      netem backend is still measured here: it shapes `rate` alone with a
//      tbf (netem/netlink/tbf_qdisc.h).
// Units: ms for delays, % for loss, Gbit/s for throughput. Quantiles are
// nearest-rank on the sorted samples.
//
// Output: the tables to stdout, which backend is measured and why to spdlog.
// Errors: std::runtime_error when no backend can run here, or when a client
// fails (impair_lab.h); InputError for a bad spec (none of the built-in
// ones is). Enters a user namespace first when not root
// (runner/topology/user_namespace.h). Everything it creates is removed on
// every exit path; the ledger covers a SIGKILL.
#pragma once

#include <cstdint>
#include <string>

namespace fabriclab::runner::bench {

struct ImpairBenchOptions {
  std::string backend = "all";  // all | netem | userspace
  int pings = 500;              // per delay row
  int loss_packets = 10000;     // per loss row
  int iperf_seconds = 4;        // length of each iperf3 run
  int iperf_rounds = 3;         // alternating bare / through rounds
  uint64_t seed = 0;            // of the userspace model; 0: random
};

// Runs the benchmark and prints its tables to stdout.
void run_impair_bench(const ImpairBenchOptions& options);

}  // namespace fabriclab::runner::bench
