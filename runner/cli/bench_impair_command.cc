// `fabriclab bench impair`: its options; the benchmark is
// runner/bench/impair_bench.h.
#include <CLI/CLI.hpp>
#include <memory>

#include "runner/bench/impair_bench.h"
#include "runner/cli/bench_parent.h"
#include "runner/cli/commands.h"

namespace fabriclab::cli {

void add_bench_impair_command(CLI::App& app) {
  auto opt = std::make_shared<runner::bench::ImpairBenchOptions>();
  CLI::App* cmd = bench_parent(app)->add_subcommand(
      "impair",
      "Fidelity and speed of each impairment backend available here: added RTT (p50/p99), loss "
      "rate, TCP throughput vs the bare link (needs root or user namespaces, ping, iperf3)");
  cmd->add_option("--backend", opt->backend, "all, netem or userspace")
      ->check(CLI::IsMember({"all", "netem", "userspace"}));
  cmd->add_option("--pings", opt->pings, "Pings per delay row")->check(CLI::Range(20, 100000));
  cmd->add_option("--loss-packets", opt->loss_packets, "Echo requests per loss row")
      ->check(CLI::Range(1000, 1000000));
  cmd->add_option("--iperf-seconds", opt->iperf_seconds, "Length of each iperf3 run")
      ->check(CLI::Range(1, 60));
  cmd->add_option("--iperf-rounds", opt->iperf_rounds, "Alternating bare/through rounds")
      ->check(CLI::Range(1, 20));
  cmd->add_option("--seed", opt->seed, "Seed of the userspace model (0: random)");
  cmd->callback([opt] { runner::bench::run_impair_bench(*opt); });
}

}  // namespace fabriclab::cli
