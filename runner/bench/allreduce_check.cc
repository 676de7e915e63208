#include "runner/bench/allreduce_check.h"

namespace fabriclab::runner::bench {
namespace {

// A prime, so that no power-of-two shift of the data maps the pattern onto
// itself: a segment written at the wrong offset is caught.
constexpr size_t kPatternPeriod = 251;

float pattern(size_t index) { return static_cast<float>(index % kPatternPeriod + 1); }

}  // namespace

void fill_allreduce_input(float* data, size_t count, int rank) {
  const float scale = static_cast<float>(rank + 1);
  for (size_t i = 0; i < count; ++i) data[i] = scale * pattern(i);
}

float expected_allreduce_sum(size_t index, int world_size) {
  const float ranks_sum = static_cast<float>(world_size * (world_size + 1) / 2);
  return ranks_sum * pattern(index);
}

int64_t count_wrong_elements(const float* result, size_t count, int world_size) {
  int64_t wrong = 0;
  for (size_t i = 0; i < count; ++i) wrong += result[i] != expected_allreduce_sum(i, world_size);
  return wrong;
}

}  // namespace fabriclab::runner::bench
