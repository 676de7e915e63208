// The engine of `fabriclab bench train`: fabriclab's trainer against
// PyTorch DDP, side by side (issue 2, "Benchmark"). A benchmark, not a test:
// it prints figures and a PASS/MISS per configuration that has a target, but
// fails only when it cannot measure.
//
// For each configuration (train_bench_configs.h) and each repeat it launches
// N `fabriclab train` ranks and N ranks of trainer/bench/ddp_baseline.py
// (Debian's python3-torch, the same libtorch 1.13 underneath) in the same
// way: one process per rank, torchrun's environment, a fresh loopback port,
// GLOO_SOCKET_IFNAME=lo (and `--iface lo` for fabriclab), the same model,
// per-rank batch, intra-op threads, steps and synthetic data shapes. The
// order alternates between repeats (fabriclab first, then DDP first) so slow
// drift on a shared machine is spread over both.
//
// Units: steps/s after `warmup` steps, from both sides' `step` events
// (step_rate.h); the table shows medians over the repeats, the ratio is
// fabriclab / DDP, gradient MB are params x 4 bytes / 10^6.
//
// With `accounting_cost`, DDP does not run: each repeat is a pair of
// fabriclab runs, one with the per-step accounting (cpu_ms, queued_ms from
// schedstat; tx/rx bytes from the counters of `lo`, read as a lab rank reads
// its eth0's) and one with `--no-accounting`, the order alternating; the
// table gives both steps/s and the accounting's cost per step, the median
// and range over the pairs of (on step time / off step time - 1).
//
// Output: progress to spdlog (info), the table to stdout.
// Errors: InputError for options that cannot work (warmup outside
// [1, steps), no DDP script, lab 02 not found for --preset issue);
// std::runtime_error when a rank exits non-zero (with the end of its
// output), when the ranks overrun `timeout_s`, or when their metrics cannot
// be timed. Everything it creates (processes, a temporary folder with
// metrics and logs) is removed on every exit path.
#pragma once

#include <cstdint>
#include <string>

namespace fabriclab::runner::bench {

// This source tree's trainer/bench/ddp_baseline.py.
std::string default_ddp_script();

struct TrainBenchOptions {
  std::string model = "mlp";  // mlp | cnn
  int64_t width = 128;
  int64_t batch = 64;  // samples per step per rank
  int world_size = 2;
  int threads = 1;  // intra-op threads per rank, both sides
  int64_t steps = 300;
  int64_t warmup = 20;  // steps excluded from the timing
  int repeat = 3;
  std::string python = "/usr/bin/python3";  // Debian's, where python3-torch lives
  std::string script = default_ddp_script();
  bool ddp_bucket_view = false;  // DDP(gradient_as_bucket_view=True); DDP's default is False
  std::string gemm = "onednn";    // fabriclab's --gemm
  std::string trainer = "/proc/self/exe";  // the fabriclab binary whose `train` runs
  std::string preset;                      // "" or "issue" (train_bench_configs.h)
  bool accounting_cost = false;            // fabriclab with and without accounting, no DDP
  int timeout_s = 600;                     // per run of N ranks
};

// Runs the benchmark and prints its table to stdout.
void run_train_bench(const TrainBenchOptions& options);

}  // namespace fabriclab::runner::bench
