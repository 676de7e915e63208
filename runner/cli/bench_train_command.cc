// `fabriclab bench train`: its options; the benchmark is
// runner/bench/train_bench.h.
#include <CLI/CLI.hpp>
#include <memory>

#include "runner/bench/train_bench.h"
#include "runner/cli/bench_parent.h"
#include "runner/cli/commands.h"

namespace fabriclab::cli {

void add_bench_train_command(CLI::App& app) {
  auto o = std::make_shared<runner::bench::TrainBenchOptions>();
  CLI::App* cmd = bench_parent(app)->add_subcommand(
      "train",
      "Steps/s of fabriclab's trainer against PyTorch DDP (python3-torch) on the same model, "
      "batch, ranks and threads, over loopback");
  auto* preset = cmd->add_option("--preset", o->preset,
                                 "'issue': lab 02's model (target >= 1.25x DDP) and an MLP with "
                                 ">= 25 MB of gradients (target >= 1.0x)")
                     ->check(CLI::IsMember({"issue"}));
  cmd->add_option("--model", o->model, "mlp or cnn")
      ->check(CLI::IsMember({"mlp", "cnn"}))
      ->excludes(preset)
      ->capture_default_str();
  cmd->add_option("--width", o->width, "Hidden width")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 16))
      ->excludes(preset)
      ->capture_default_str();
  cmd->add_option("--batch", o->batch, "Samples per step per rank")
      ->check(CLI::Range(int64_t{1}, int64_t{8192}))
      ->excludes(preset)
      ->capture_default_str();
  cmd->add_option("--world-size", o->world_size, "Ranks per run")
      ->check(CLI::Range(2, 16))
      ->capture_default_str();
  cmd->add_option("--threads", o->threads, "Intra-op threads per rank (both sides)")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  cmd->add_option("--steps", o->steps, "Steps per run")
      ->check(CLI::Range(int64_t{2}, int64_t{1000000}))
      ->capture_default_str();
  cmd->add_option("--warmup", o->warmup, "Steps excluded from the timing")->capture_default_str();
  cmd->add_option("--repeat", o->repeat, "Runs of each side, alternating")
      ->check(CLI::Range(1, 50))
      ->capture_default_str();
  cmd->add_option("--python", o->python, "Python with python3-torch")->capture_default_str();
  cmd->add_option("--ddp-script", o->script, "The DDP baseline")->capture_default_str();
  cmd->add_flag("--ddp-bucket-view", o->ddp_bucket_view,
                "Run DDP with gradient_as_bucket_view=True (as fabriclab; DDP's default copies "
                "gradients into and out of its buckets)");
  cmd->add_option("--gemm", o->gemm,
                  "fabriclab's --gemm: onednn, or torch for the same BLAS as DDP (the same math "
                  "on the same kernels: what is left is the frameworks' own overhead)")
      ->check(CLI::IsMember({"onednn", "torch"}))
      ->capture_default_str();
  cmd->add_flag("--accounting-cost", o->accounting_cost,
                "Instead of DDP: fabriclab with and without its per-step accounting (cpu_ms, "
                "tx/rx bytes; train --no-accounting), alternating, and the cost per step");
  cmd->add_option("--trainer", o->trainer, "fabriclab binary to benchmark (e.g. an older build)")
      ->check(CLI::ExistingFile)
      ->capture_default_str();
  cmd->add_option("--timeout", o->timeout_s, "Seconds one run of N ranks may take")
      ->check(CLI::Range(10, 86400))
      ->capture_default_str();
  cmd->callback([o] { runner::bench::run_train_bench(*o); });
}

}  // namespace fabriclab::cli
