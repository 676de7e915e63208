// `fabriclab bench queue`: its options; the benchmark is
// runner/bench/queue_bench.h.
#include <CLI/CLI.hpp>
#include <memory>

#include "runner/bench/queue_bench.h"
#include "runner/cli/bench_parent.h"
#include "runner/cli/commands.h"

namespace fabriclab::cli {

void add_bench_queue_command(CLI::App& app) {
  auto opt = std::make_shared<runner::bench::QueueBenchOptions>();
  CLI::App* cmd = bench_parent(app)->add_subcommand(
      "queue",
      "Fidelity of the switch queue (lab 08): drain rate by iperf3, ECN marking probability vs "
      "queue depth, no drop in lossless under a 3-to-1 incast (needs root or user namespaces, "
      "iperf3)");
  cmd->add_option("--seconds", opt->seconds, "Length of each measured flow")
      ->check(CLI::Range(1, 60));
  cmd->callback([opt] { runner::bench::run_queue_bench(*opt); });
}

}  // namespace fabriclab::cli
