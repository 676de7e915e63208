// One rank of `fabriclab bench allreduce` (what the benchmark launches in
// each lab namespace as `fabriclab bench allreduce-rank`): nccl-tests'
// all_reduce_perf loop over Gloo's TCP transport, for one process.
//
// Rendezvous as the trainer's (trainer/process_group.h: a c10d TCPStore at
// MASTER_ADDR:MASTER_PORT, hosted by rank 0); Gloo binds to the lab address.
// `channels` > 1 opens that many Gloo contexts, each with its own device
// (its own TCP connections and event-loop thread), and splits every buffer
// into that many contiguous slices reduced concurrently, one per channel --
// NCCL's channels, in Gloo's terms.
//
// For each size: `warmup` untimed allreduces, then `iters` timed ones,
// out-of-place (input and output buffers apart) and then in-place; with
// `check`, one more of each on freshly filled data whose result is checked
// element by element (allreduce_check.h). Each rank writes one JSON line per
// size to `results_path`:
//   {"size": B, "count": N, "out_of_place": {"time_us": T, "wrong": W},
//    "in_place": {...}}
// with its own mean time per iteration (us) and its own #wrong (-1 when not
// checked). The benchmark averages the times over ranks and sums #wrong
// (allreduce_table.h).
//
// `transport` "roce" runs the same loop over Gloo's ibverbs transport on the
// RDMA device `rdma_device` (host mode: the rxe device the runner creates on
// the lab interface, FABRICLAB_RDMA_DEVICE), its GID the lab address's
// (runner/rdma/roce_gid.h). Gloo's ibverbs pairs have no unbound buffers, so
// there each allreduce is Gloo's ring over bound buffers (AllreduceRing,
// in-place; out-of-place copies the input first), and --segment-bytes does
// not apply.
//
// `wrong_reduction` makes the reduction take the maximum instead of the sum:
// the test that shows #wrong is counted from real data.
//
// With `metrics_path`, it also writes the workload contract's events
// (runner/workload/workload.h; allreduce_events.h): start, one step per size,
// final, or error when it fails -- the `allreduce` workload of a lab.
//
// Errors: InputError for bad options; std::runtime_error (or Gloo's
// exceptions, all std::exception) when a peer fails or the timeout passes.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "trainer/rendezvous.h"

namespace fabriclab::runner::bench {

struct AllreduceRankOptions {
  std::vector<int64_t> sizes_bytes;  // each a multiple of 4 (fp32)
  int iters = 20;
  int warmup = 5;
  bool check = true;
  int channels = 1;
  int64_t segment_bytes = 0;  // Gloo's largest send/recv per step (two in flight); 0 = its 1 MiB
  bool wrong_reduction = false;
  // Which of Gloo's allreduce algorithms (common/allreduce_algorithms.h);
  // "ring" is gloo::allreduce, what the rank ran before it had the choice.
  std::string algorithm = "ring";
  std::string transport = "tcp";  // "tcp" | "roce" (Gloo's ibverbs transport)
  std::string rdma_device;        // roce: the RDMA device, e.g. fabriclab_eth0
  std::string results_path;  // "" = no JSON lines of results
  // "" = none; else the `allreduce` workload's metrics events
  // (allreduce_events.h): what a lab scenario's ranks write.
  std::string metrics_path;
};

void run_allreduce_rank(const trainer::Rendezvous& rendezvous, const AllreduceRankOptions& options);

}  // namespace fabriclab::runner::bench
