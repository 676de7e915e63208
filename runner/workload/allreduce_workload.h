// The `allreduce` workload: every rank runs the allreduce loop of `fabriclab
// bench allreduce` (nccl-tests' all_reduce_perf, runner/bench/allreduce_rank.h)
// as `fabriclab bench allreduce-rank --metrics PATH`, and reports it in the
// workload contract's events (workload.h, doc/metrics.md): one `step` per
// message size, carrying that size's time, algbw, busbw and #wrong.
//
// Parameters, in nccl-tests' words where it has them (labs/SCHEMA.md):
//   minbytes, maxbytes, stepfactor   the sizes (message_sizes.h); 1M, 16M, 2
//   iters, warmup_iters              timed and untimed allreduces per size
//                                    and place (out-of-place, in-place); 5, 1
//   check                            1: count #wrong from the data; 0: don't (1)
//   channels                         Gloo contexts per rank (the bench's --channels; 2)
//   timeout_s                        rendezvous and one collective (120)
//   algorithm                        Gloo's algorithm: ring (gloo::allreduce, the
//                                    default), ring_chunked, halving_doubling,
//                                    bcube (common/allreduce_algorithms.h)
// Steps = the number of sizes. It trains no model: from = "lab" model values
// are refused.
#pragma once

#include "runner/workload/workload.h"

namespace fabriclab::runner {

const Workload& allreduce_workload();

}  // namespace fabriclab::runner
