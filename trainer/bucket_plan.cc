#include "trainer/bucket_plan.h"

#include "common/input_error.h"

namespace fabriclab::trainer {

std::vector<Bucket> plan_buckets(const std::vector<int64_t>& param_bytes,
                                 int64_t first_bucket_bytes, int64_t bucket_bytes) {
  if (first_bucket_bytes <= 0 || bucket_bytes <= 0) {
    throw InputError("bucket caps must be positive (got " + std::to_string(first_bucket_bytes) +
                     " and " + std::to_string(bucket_bytes) + " bytes)");
  }
  std::vector<Bucket> buckets;
  Bucket current;
  for (int i = static_cast<int>(param_bytes.size()) - 1; i >= 0; --i) {
    current.params.push_back(i);
    current.bytes += param_bytes[i];
    const int64_t cap = buckets.empty() ? first_bucket_bytes : bucket_bytes;
    if (current.bytes >= cap) {
      buckets.push_back(std::move(current));
      current = Bucket{};
    }
  }
  if (!current.params.empty()) buckets.push_back(std::move(current));
  return buckets;
}

}  // namespace fabriclab::trainer
