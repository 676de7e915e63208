#include "runner/bench/gemm_bench.h"

#include <spdlog/spdlog.h>
#include <torch/torch.h>

#include <chrono>
#include <cstdio>
#include <vector>

#include "runner/bench/step_rate.h"
#include "trainer/dense_layer.h"

namespace fabriclab::runner::bench {
namespace {

using trainer::Gemm;

// Seconds per forward + backward pass, averaged over o.iterations.
double time_passes(Gemm gemm, const GemmBenchOptions& o) {
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

}  // namespace

void run_gemm_bench(const GemmBenchOptions& o) {
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

}  // namespace fabriclab::runner::bench
