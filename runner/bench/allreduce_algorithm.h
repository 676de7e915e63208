// One channel's allreduce of a fixed buffer with the algorithm the options
// name (common/allreduce_algorithms.h): the `algorithm` of the allreduce
// workload and of `fabriclab bench allreduce --algorithm`.
//
// "ring" is gloo::allreduce, as the rank ran it before it had a choice. The
// others are Gloo's older algorithm classes (gloo/allreduce_*.h), which
// reduce in place into the buffer they were built on and set up their
// buffers once: they are built once per size and run many times, as Gloo's
// own benchmark does, so the timed loop measures the exchanges and not the
// set-up. Out of place, the input is copied into the output first (a memcpy,
// small beside any exchange).
#pragma once

#include <gloo/algorithm.h>
#include <gloo/context.h>

#include <cstddef>
#include <memory>
#include <string>

namespace fabriclab::runner::bench {

class ChannelAllreduce {
 public:
  // `out` holds `count` floats and outlives this object; `max_reduction`
  // reduces with max instead of sum (the bench's --wrong-reduction).
  ChannelAllreduce(const std::string& algorithm, std::shared_ptr<gloo::Context> context,
                   float* out, size_t count, bool max_reduction, size_t segment_bytes);

  // One allreduce into `out`; `in` == nullptr: in place.
  void run(const float* in);

 private:
  std::shared_ptr<gloo::Context> context_;
  float* out_;
  size_t count_;
  bool max_reduction_;
  size_t segment_bytes_;
  std::unique_ptr<gloo::Algorithm> legacy_;  // null for "ring"
};

}  // namespace fabriclab::runner::bench
