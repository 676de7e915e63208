// Gradient synchronisation as PyTorch DDP does it, on a c10d ProcessGroup.
//
//  * At start, broadcast_parameters() copies rank 0's parameters to all.
//  * Gradients are grouped into buckets (bucket_plan.h). A hook on every
//    parameter copies its gradient into its bucket's flat buffer as autograd
//    produces it; when a bucket is full its allreduce is launched right away,
//    asynchronously, so communication overlaps the rest of backward.
//  * Buckets are launched strictly in bucket order on every rank (a bucket
//    that fills early waits for its predecessors), because collectives must
//    be issued in the same sequence everywhere.
//  * finish(), after backward(), waits for every allreduce, divides by the
//    world size and writes the averaged gradients into param.grad(). The time
//    it spends blocked is the step's exposed communication time (comm_ms).
//
// With a null process group (world size 1) nothing is sent and finish()
// returns 0. Not thread-safe; one instance per model, used by one thread.
// Errors: a failed or timed-out collective throws from finish(): c10::Error,
// or gloo::IoException (a std::runtime_error) when a peer resets the connection.
#pragma once

#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/types.h>

#include <vector>

#include "trainer/bucket_plan.h"

namespace fabriclab::trainer {

class GradientSync {
 public:
  GradientSync(std::vector<torch::Tensor> params, c10::intrusive_ptr<c10d::ProcessGroup> group,
               int64_t first_bucket_bytes = kDefaultFirstBucketBytes,
               int64_t bucket_bytes = kDefaultBucketBytes);

  void broadcast_parameters();

  // Returns milliseconds spent blocked waiting for communication.
  double finish();

  // Gradient bytes this rank allreduces per step (the payload S; on the wire
  // a ring allreduce moves 2(N-1)/N x S per rank).
  int64_t bytes_per_step() const { return bytes_per_step_; }
  const std::vector<Bucket>& buckets() const { return plan_; }

 private:
  struct BucketState {
    torch::Tensor buffer;              // flat fp32, all of the bucket's gradients
    std::vector<int64_t> offsets;      // element offset of each param in buffer
    int pending = 0;                   // gradients not yet copied this step
    c10::intrusive_ptr<c10d::Work> work;
  };

  void on_gradient(int param, const torch::Tensor& grad);
  void launch_ready_buckets();
  void reset_for_next_step();

  std::vector<torch::Tensor> params_;
  c10::intrusive_ptr<c10d::ProcessGroup> group_;
  std::vector<Bucket> plan_;
  std::vector<BucketState> state_;
  std::vector<std::pair<int, int>> where_;  // param -> (bucket, slot)
  size_t next_to_launch_ = 0;
  int64_t bytes_per_step_ = 0;
};

}  // namespace fabriclab::trainer
