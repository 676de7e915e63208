// One rank of data-parallel training: the loop the labs measure.
//
// Each step: take this rank's next batch (the training set is sharded by
// rank, reshuffled every epoch from `seed`), forward, backward (gradient
// buckets are allreduced as they fill, see gradient_sync.h), wait for the
// remaining communication, SGD update. Step, eval and final events go to the
// metrics file (doc/metrics.md); progress goes to stderr.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trainer/gemm.h"
#include "trainer/model_kind.h"
#include "trainer/rendezvous.h"

namespace fabriclab::trainer {

struct TrainOptions {
  ModelKind model = ModelKind::kMlp;
  int64_t width = 128;
  int64_t steps = 0;   // 0 = derive from epochs
  int64_t epochs = 1;
  int64_t batch = 64;  // per rank
  double lr = 0.05;  // peak; decays along a cosine to 0
  double momentum = 0.9;
  uint64_t seed = 1;
  int threads = 1;     // intra-op threads
  Gemm gemm = Gemm::kOnednn;  // what multiplies the dense layers' matrices
  int64_t eval_every = 0;  // 0 = only after the last step
  // Also evaluate after these steps; step 0 is the untrained model (chance),
  // evaluated before the first step and outside the run's wall time.
  std::vector<int64_t> eval_at;
  int64_t log_every = 50;  // progress line every N steps
  std::string data_dir;    // "" = the Debian package's folder; "synthetic" = generated
  std::string metrics_path;
  int64_t first_bucket_bytes = 1 << 20;
  int64_t bucket_bytes = 25 << 20;
  // Gloo contexts per rank, each with its own TCP connection to every peer;
  // every bucket is allreduced in that many slices at once (process_group.h,
  // gradient_sync.h): NCCL's channels, or the QPs of
  // NCCL_IB_QPS_PER_CONNECTION, whose 4-tuples an ECMP fabric hashes apart.
  int channels = 1;
  // A slow worker (lab 05's "slow GPU"): rank `slow_rank` (-1 = every rank)
  // takes `compute_slowdown` times as long to compute each step. Emulated:
  // after its forward pass it sleeps (factor - 1) x its own compute time
  // (forward now, backward as last step's), so its gradients -- and the
  // allreduce everyone else waits in -- come that much later. A sleep, not a
  // CPU quota: it needs no cgroup, works rootless and on any host, and leaves
  // the CPU to the other ranks, as a slow GPU would.
  double compute_slowdown = 1;
  int slow_rank = -1;
  // An accelerator's compute time per step, which does not depend on the
  // CPU the lab runs on (0 = none: the step computes as fast as this CPU
  // does). Each step's forward and backward pass take at least this long:
  // a rank that computed faster sleeps the rest after its forward pass, as
  // the slow worker does. A stand-in for a GPU: it keeps a lab's ratio of
  // compute to network, which its lesson depends on, the same on a fast or
  // a slow CPU, and leaves the CPU to the network stack as a GPU would.
  // The slow worker's factor applies on top.
  double step_compute_ms = 0;
  // The per-step accounting: each step event's cpu_ms and queued_ms (two
  // reads of /proc/self/task/*/schedstat, sched_time.h) and tx/rx bytes and
  // packets (two of /proc/self/net/dev, wire_bytes.h), the files kept open
  // from step to step. false (--no-accounting)
  // skips those reads, and the fields: what `bench train --accounting-cost`
  // sets against it to say what the accounting costs a step.
  bool accounting = true;
  // The device whose counters give tx/rx bytes; "" = the interface Gloo binds
  // to (lab_interface(), which counts nothing on loopback). Set, even to
  // "lo", it is read: `bench train --accounting-cost` runs on loopback and
  // still times the read a lab rank makes.
  std::string wire_device;
  Rendezvous rendezvous;
};

// Throws InputError for bad options (before any network is touched).
void validate(const TrainOptions& options);

// Runs training. Returns normally on success; throws on failure. A failed
// collective (peer died, timeout) is reported and ends the process with
// exit code 1 without unwinding (see trainer.cc for why).
void run_training(const TrainOptions& options);

}  // namespace fabriclab::trainer
