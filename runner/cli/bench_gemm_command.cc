// `fabriclab bench gemm`: its options; the benchmark is runner/bench/gemm_bench.h.
#include <CLI/CLI.hpp>
#include <memory>

#include "runner/bench/gemm_bench.h"
#include "runner/cli/bench_parent.h"
#include "runner/cli/commands.h"

namespace fabriclab::cli {

void add_bench_gemm_command(CLI::App& app) {
  auto o = std::make_shared<runner::bench::GemmBenchOptions>();
  CLI::App* cmd = bench_parent(app)->add_subcommand(
      "gemm",
      "GFLOP/s of one dense layer's forward and backward on oneDNN against libtorch's BLAS "
      "(what the trainer's --gemm chooses between)");
  cmd->add_option("--batch", o->batch, "Rows of the input")
      ->check(CLI::Range(int64_t{1}, int64_t{65536}))
      ->capture_default_str();
  cmd->add_option("--in", o->in, "Input features")
      ->check(CLI::Range(int64_t{1}, int64_t{65536}))
      ->capture_default_str();
  cmd->add_option("--out", o->out, "Output features")
      ->check(CLI::Range(int64_t{1}, int64_t{65536}))
      ->capture_default_str();
  cmd->add_flag("--first-layer,!--hidden-layer", o->first_layer,
                "First layer (input is data: 2 products) or a hidden one (3 products)")
      ->capture_default_str();
  cmd->add_option("--threads", o->threads, "Intra-op threads")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  cmd->add_option("--repeat", o->repeat, "Repeats of each side, alternating")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  cmd->add_option("--iterations", o->iterations, "Passes per repeat")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  cmd->footer("Example: fabriclab bench gemm --batch 1536 --in 512 --out 512 --hidden-layer");
  cmd->callback([o] { runner::bench::run_gemm_bench(*o); });
}

}  // namespace fabriclab::cli
