// `fabriclab bench gemm`: one dense layer's matrix products on oneDNN against
// libtorch's BLAS, in this process, side by side. A benchmark, not a test.
//
// It times what a training step does with the layer: forward (x W^T + b)
// and backward (the weight gradient, and the input gradient unless
// --first-layer), through trainer::Dense, so the figures are the ones the
// trainer gets. GFLOP/s counts 2 x batch x in x out per product. Alternating
// repeats, medians; the default shape is lab 02's first layer.
#include <spdlog/spdlog.h>
#include <torch/torch.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <memory>

#include "runner/bench/step_rate.h"
#include "runner/cli/bench_parent.h"
#include "runner/cli/commands.h"
#include "trainer/dense_layer.h"

namespace fabriclab::cli {
namespace {

using trainer::Gemm;

struct BenchGemmOptions {
  int64_t batch = 1536;  // lab 02's per-rank batch
  int64_t in = 784;      // lab 02's first layer: 784 -> 512
  int64_t out = 512;
  bool first_layer = true;  // the input is data: no input gradient
  int threads = 1;
  int repeat = 5;
  int iterations = 20;  // forward + backward passes per repeat
};

// Seconds per forward + backward pass, averaged over o.iterations.
double time_passes(Gemm gemm, const BenchGemmOptions& o) {
  torch::manual_seed(1);
  trainer::Dense layer(o.in, o.out, gemm);
  const torch::Tensor x = torch::randn({o.batch, o.in}).set_requires_grad(!o.first_layer);
  const torch::Tensor upstream = torch::randn({o.batch, o.out});
  auto pass = [&] {
    layer->zero_grad();
    layer->forward(x).backward(upstream);
  };
  pass();  // first call: oneDNN generates its kernel, buffers are allocated
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < o.iterations; ++i) pass();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() /
         o.iterations;
}

void run_bench(const BenchGemmOptions& o) {
  torch::set_num_threads(o.threads);
  const int products = o.first_layer ? 2 : 3;
  const double flops = 2.0 * o.batch * o.in * o.out * products;
  std::vector<double> onednn, blas;
  for (int r = 0; r < o.repeat; ++r) {
    const bool onednn_first = r % 2 == 0;  // spread drift on a shared machine over both
    for (Gemm gemm : {onednn_first ? Gemm::kOnednn : Gemm::kTorch,
                      onednn_first ? Gemm::kTorch : Gemm::kOnednn}) {
      const double seconds = time_passes(gemm, o);
      (gemm == Gemm::kOnednn ? onednn : blas).push_back(flops / seconds / 1e9);
      spdlog::info("  repeat {}: {:6} {:7.2f} ms per pass, {:6.1f} GFLOP/s", r + 1,
                   trainer::gemm_name(gemm), seconds * 1e3, flops / seconds / 1e9);
    }
  }
  const double a = runner::median(onednn), b = runner::median(blas);
  std::printf(
      "\nfabriclab bench gemm: dense layer %lld -> %lld, batch %lld, %d thread(s); forward + "
      "backward (%d products of 2 x %lld x %lld x %lld flops), median of %d alternating repeats "
      "of %d passes\n\n",
      static_cast<long long>(o.in), static_cast<long long>(o.out),
      static_cast<long long>(o.batch), o.threads, products, static_cast<long long>(o.batch),
      static_cast<long long>(o.in), static_cast<long long>(o.out), o.repeat, o.iterations);
  std::printf("%-8s %-48s %10s %12s\n", "--gemm", "multiplies on", "GFLOP/s", "ms per pass");
  std::printf("%-8s %-48s %10.1f %12.2f\n", "onednn", trainer::describe_gemm(Gemm::kOnednn).c_str(),
              a, flops / a / 1e6);
  std::printf("%-8s %-48s %10.1f %12.2f\n", "torch", trainer::describe_gemm(Gemm::kTorch).c_str(),
              b, flops / b / 1e6);
  std::printf("\nonednn / torch: %.2fx\n", b > 0 ? a / b : 0.0);
}

}  // namespace

void add_bench_gemm_command(CLI::App& app) {
  auto o = std::make_shared<BenchGemmOptions>();
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
  cmd->callback([o] { run_bench(*o); });
}

}  // namespace fabriclab::cli
