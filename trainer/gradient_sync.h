// Gradient synchronisation as PyTorch DDP does it, on a c10d ProcessGroup.
//
//  * At start, broadcast_parameters() copies rank 0's parameters to all.
//  * Gradients are grouped into buckets (bucket_plan.h), one flat fp32
//    buffer each. Every parameter's .grad is an alias of its slice of the
//    bucket (DDP's gradient_as_bucket_view), so autograd accumulates straight
//    into the buffer and nothing is copied in or out. A hook that runs after
//    a parameter's gradient has been accumulated marks it ready; when a
//    bucket is complete its allreduce is launched right away, asynchronously,
//    so communication overlaps the rest of backward. If something replaced a
//    .grad (e.g. set it to undefined), the hook copies it into the bucket and
//    points .grad back at the alias.
//  * Buckets are launched strictly in bucket order on every rank (a bucket
//    that fills early waits for its predecessors), because collectives must
//    be issued in the same sequence everywhere.
//  * finish(), after backward(), waits for every allreduce and divides the
//    buckets by the world size: param.grad() then holds the average. The
//    time it spends blocked is the step's exposed communication time (comm_ms).
//  * Zero gradients in place between steps (the C++ optimizer's zero_grad()
//    does); that zeroes the buckets.
//
//  * With `channels` above 1 each bucket is allreduced as that many
//    contiguous slices, one collective each, launched together: on a group
//    made with as many channels (process_group.h) they go to different
//    contexts, so over different TCP connections, concurrently -- as NCCL
//    splits a collective over its channels. Each connection's 4-tuple is
//    hashed on its own by an ECMP fabric: the bytes spread over its paths.
//
// With a null process group (world size 1) nothing is sent and finish()
// returns 0. Not thread-safe; one instance per model, used by one thread.
// Errors: a failed or timed-out collective throws from finish(): c10::Error,
// or gloo::IoException (a std::runtime_error) when a peer resets the connection.
#pragma once

#include <torch/csrc/autograd/function.h>
#include <torch/types.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

#include <memory>
#include <vector>

#include "trainer/bucket_plan.h"

namespace fabriclab::trainer {

class GradientSync {
 public:
  GradientSync(std::vector<torch::Tensor> params, c10::intrusive_ptr<c10d::ProcessGroup> group,
               int64_t first_bucket_bytes = kDefaultFirstBucketBytes,
               int64_t bucket_bytes = kDefaultBucketBytes, int channels = 1);

  void broadcast_parameters();

  // Returns milliseconds spent blocked waiting for communication.
  double finish();

  // Gradient bytes this rank allreduces per step (the payload S; on the wire
  // a ring allreduce moves 2(N-1)/N x S per rank).
  int64_t bytes_per_step() const { return bytes_per_step_; }
  const std::vector<Bucket>& buckets() const { return plan_; }

 private:
  struct BucketState {
    torch::Tensor buffer;          // flat fp32, all of the bucket's gradients
    std::vector<int64_t> offsets;  // element offset of each param in buffer
    int pending = 0;               // gradients not yet accumulated this step
    std::vector<c10::intrusive_ptr<c10d::Work>> works;  // one per slice launched
  };

  void on_gradient_ready(int param);
  void launch_ready_buckets();
  void reset_for_next_step();

  std::vector<torch::Tensor> params_;
  c10::intrusive_ptr<c10d::ProcessGroup> group_;
  int channels_ = 1;
  std::vector<Bucket> plan_;
  std::vector<BucketState> state_;
  std::vector<std::pair<int, int>> where_;   // param -> (bucket, slot)
  std::vector<torch::Tensor> grad_aliases_;  // param -> its slice of the bucket, shaped as param
  // Autograd holds a parameter's AccumulateGrad node weakly; keeping it alive
  // here keeps the hooks registered on it (as DDP's Reducer does).
  std::vector<std::shared_ptr<torch::autograd::Node>> accumulators_;
  size_t next_to_launch_ = 0;
  int64_t bytes_per_step_ = 0;
};

}  // namespace fabriclab::trainer
