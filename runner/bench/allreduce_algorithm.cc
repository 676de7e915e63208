#include "runner/bench/allreduce_algorithm.h"

#include <gloo/allreduce.h>
#include <gloo/allreduce_bcube.h>
#include <gloo/allreduce_halving_doubling.h>
#include <gloo/allreduce_ring_chunked.h>
#include <gloo/math.h>

#include <cstring>
#include <utility>
#include <vector>

#include "common/allreduce_algorithms.h"
#include "common/input_error.h"

namespace fabriclab::runner::bench {
namespace {

std::unique_ptr<gloo::Algorithm> legacy_algorithm(const std::string& name,
                                                  const std::shared_ptr<gloo::Context>& context,
                                                  float* out, size_t count, bool max_reduction) {
  const gloo::ReductionFunction<float>* fn = max_reduction ? gloo::ReductionFunction<float>::max
                                                           : gloo::ReductionFunction<float>::sum;
  const std::vector<float*> ptrs = {out};
  const int n = static_cast<int>(count);
  if (name == "ring_chunked")
    return std::make_unique<gloo::AllreduceRingChunked<float>>(context, ptrs, n, fn);
  if (name == "halving_doubling")
    return std::make_unique<gloo::AllreduceHalvingDoubling<float>>(context, ptrs, n, fn);
  if (name == "bcube") {
    // Gloo's bcube needs the ranks to split evenly into groups of its base (2).
    if (context->size % context->base != 0)
      throw InputError("algorithm bcube needs a number of ranks divisible by " +
                       std::to_string(context->base) + ", not " + std::to_string(context->size));
    return std::make_unique<gloo::AllreduceBcube<float>>(context, ptrs, n, fn);
  }
  throw InputError("unknown allreduce algorithm '" + name + "': expected " +
                   allreduce_algorithm_list());
}

}  // namespace

ChannelAllreduce::ChannelAllreduce(const std::string& algorithm,
                                   std::shared_ptr<gloo::Context> context, float* out,
                                   size_t count, bool max_reduction, size_t segment_bytes)
    : context_(std::move(context)),
      out_(out),
      count_(count),
      max_reduction_(max_reduction),
      segment_bytes_(segment_bytes) {
  if (algorithm != "ring" && count_ > 0)
    legacy_ = legacy_algorithm(algorithm, context_, out_, count_, max_reduction_);
}

void ChannelAllreduce::run(const float* in) {
  if (count_ == 0) return;
  if (legacy_) {
    if (in != nullptr) std::memcpy(out_, in, count_ * sizeof(float));
    legacy_->run();
    return;
  }
  using ReduceFn = void (*)(void*, const void*, const void*, size_t);
  const ReduceFn reduce = max_reduction_ ? static_cast<ReduceFn>(&gloo::max<float>)
                                         : static_cast<ReduceFn>(&gloo::sum<float>);
  gloo::AllreduceOptions options(context_);
  if (in != nullptr) options.setInput(const_cast<float*>(in), count_);
  options.setOutput(out_, count_);
  options.setReduceFunction(reduce);
  if (segment_bytes_ > 0) options.setMaxSegmentSize(segment_bytes_);
  gloo::allreduce(options);
}

}  // namespace fabriclab::runner::bench
