// The engine of `fabriclab bench gemm`: one dense layer's matrix products on
// oneDNN against libtorch's BLAS, in this process, side by side. A
// benchmark, not a test: it prints figures and judges nothing.
//
// What it measures: what a training step does with the layer -- forward
// (x W^T + b) and backward (the weight gradient, and the input gradient
// unless `first_layer`) -- through trainer::Dense, so the figures are the
// ones the trainer gets. Each side runs `repeat` times, alternating which
// goes first (drift on a shared machine hits both); each repeat times
// `iterations` passes after one untimed pass (oneDNN generates its kernel,
// buffers are allocated). The table shows medians.
//
// Units: GFLOP/s counts 2 x batch x in x out flops per product (2 products
// for a first layer, 3 for a hidden one); times are ms per forward +
// backward pass. Progress lines go to spdlog (info); the table to stdout.
//
// Errors: none of its own; libtorch's exceptions pass through. The caller
// validates the ranges (the CLI's checks). Sets libtorch's intra-op thread
// count for the whole process.
#pragma once

#include <cstdint>

namespace fabriclab::runner::bench {

struct GemmBenchOptions {
  int64_t batch = 1536;  // lab 02's per-rank batch
  int64_t in = 784;      // lab 02's first layer: 784 -> 512
  int64_t out = 512;
  bool first_layer = true;  // the input is data: no input gradient
  int threads = 1;          // libtorch intra-op threads
  int repeat = 5;           // repeats of each side, alternating
  int iterations = 20;      // forward + backward passes per repeat
};

// Runs the benchmark and prints its table to stdout.
void run_gemm_bench(const GemmBenchOptions& options);

}  // namespace fabriclab::runner::bench
