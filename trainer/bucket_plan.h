// Which gradients travel together: DDP's bucketing, as a pure function.
//
// Gradients become ready in roughly reverse parameter order during backward
// (the last layer's first), so buckets are filled in reverse parameter order.
// The first bucket is kept small (DDP: 1 MB) so the first allreduce starts
// early and overlaps the rest of backward; later buckets use the larger cap
// (DDP: 25 MB) so per-message overhead stays low. A bucket closes as soon as
// it reaches its cap; a parameter larger than the cap gets a bucket alone.
#pragma once

#include <cstdint>
#include <vector>

namespace fabriclab::trainer {

constexpr int64_t kDefaultFirstBucketBytes = 1 << 20;   // 1 MiB, as DDP
constexpr int64_t kDefaultBucketBytes = 25 << 20;       // 25 MiB, as DDP

struct Bucket {
  std::vector<int> params;  // indices into the parameter list, in ready order
  int64_t bytes = 0;
};

// `param_bytes[i]` is the gradient size of parameter i. Every parameter
// appears in exactly one bucket. Caps must be positive (else InputError).
std::vector<Bucket> plan_buckets(const std::vector<int64_t>& param_bytes,
                                 int64_t first_bucket_bytes = kDefaultFirstBucketBytes,
                                 int64_t bucket_bytes = kDefaultBucketBytes);

}  // namespace fabriclab::trainer
