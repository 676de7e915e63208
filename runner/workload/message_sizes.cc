#include "runner/workload/message_sizes.h"

#include <algorithm>

namespace fabriclab::runner {

std::vector<int64_t> message_sizes(int64_t min_bytes, int64_t max_bytes, int64_t step_factor) {
  std::vector<int64_t> sizes;
  for (int64_t size = min_bytes; size <= max_bytes; size *= step_factor) {
    sizes.push_back(std::max<int64_t>(4, size / 4 * 4));
  }
  return sizes;
}

}  // namespace fabriclab::runner
