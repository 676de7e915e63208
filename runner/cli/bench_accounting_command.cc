// `fabriclab bench accounting`: its options; the benchmark is
// runner/bench/accounting_bench.h.
#include <CLI/CLI.hpp>
#include <memory>

#include "runner/bench/accounting_bench.h"
#include "runner/cli/bench_parent.h"
#include "runner/cli/commands.h"

namespace fabriclab::cli {

void add_bench_accounting_command(CLI::App& app) {
  auto o = std::make_shared<runner::bench::AccountingBenchOptions>();
  CLI::App* cmd = bench_parent(app)->add_subcommand(
      "accounting",
      "Microseconds per step of the trainer's per-step accounting (schedstat, the interface's "
      "counters), each way of reading them timed alone");
  cmd->add_option("--device", o->device, "Interface whose counters are read")
      ->capture_default_str();
  cmd->add_option("--idle-threads", o->idle_threads,
                  "Blocked threads beside the reading one (a 2-rank trainer has 4-5 threads)")
      ->check(CLI::Range(0, 256))
      ->capture_default_str();
  cmd->add_option("--iterations", o->iterations, "Steps (2 readings each) per round")
      ->check(CLI::Range(1, 10000000))
      ->capture_default_str();
  cmd->add_option("--rounds", o->rounds, "Rounds of each method, in turn")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  cmd->add_option("--step-ms", o->step_ms, "Step the cost is a share of (lab 10's: 2.4 ms)")
      ->check(positive_number())
      ->capture_default_str();
  cmd->callback([o] { runner::bench::run_accounting_bench(*o); });
}

}  // namespace fabriclab::cli
