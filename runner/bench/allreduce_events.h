// The `allreduce` workload's metrics events (runner/workload/allreduce_workload.h):
// what `fabriclab bench allreduce-rank --metrics PATH` writes, in the
// workload contract's format (doc/metrics.md, "The allreduce workload"), so
// the runner's watchdog, live view, report and grader read it as they read
// the trainer's.
//
//   start   world_size, steps (= sizes), sizes, iters, warmup_iters, check, channels
//   step    one per message size: step_ms the whole size (warmup, timed
//           iterations and check, both places), comm_ms = step_ms (it is all
//           communication), compute_ms 0, bytes = size; and nccl-tests'
//           figures of this rank: size, count, time_us, algbw, busbw, wrong
//           (out-of-place) and ip_time_us, ip_algbw, ip_busbw, ip_wrong
//           (in-place); GB/s as doc/allreduce_bench.md defines them; wrong
//           -1 when not checked. No `loss`: nothing is trained.
//   final   steps, wall_s (first step start to last step end), avg_busbw
//           (this rank's mean over sizes and places), wrong (sum, -1 unchecked)
//
// Pure functions (the writer adds v, event, rank, ts); thread-safe.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

namespace fabriclab::runner::bench {

struct AllreduceRankOptions;

// One place's measurement on one rank: mean time per timed iteration and
// #wrong (-1 when not checked).
struct PlaceResult {
  double time_us = 0;
  int64_t wrong = -1;
};

struct SizeResult {
  int64_t size_bytes = 0;
  PlaceResult out_of_place;
  PlaceResult in_place;
  double step_ms = 0;  // the whole size, both places
};

nlohmann::json allreduce_start_fields(const AllreduceRankOptions& options, int world_size);
nlohmann::json allreduce_step_fields(int64_t step, const SizeResult& result, int world_size);
nlohmann::json allreduce_final_fields(const std::vector<SizeResult>& results, int world_size,
                                      double wall_s);

}  // namespace fabriclab::runner::bench
