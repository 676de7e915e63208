// The data `fabriclab bench allreduce` reduces and how its result is checked:
// the #wrong column (nccl-tests counts the elements that differ from the
// expected result; so does this).
//
// Each rank fills its input with a known pattern that depends on the rank and
// on the element's position:
//   input[r][i] = (r + 1) x (i mod 251 + 1)
// so the sum over N ranks is exactly (i mod 251 + 1) x N(N+1)/2. Every value
// is a small integer, exact in fp32 whatever the order of the additions; a
// reduction that misses a rank, counts one twice, takes the max, or puts a
// segment at the wrong offset (251 divides no power-of-two segment size)
// changes elements, and each changed element is one #wrong.
//
// Pure functions, no state; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>

namespace fabriclab::runner::bench {

// Fills `count` floats with rank `rank`'s pattern (above).
void fill_allreduce_input(float* data, size_t count, int rank);

// The value element `index` must hold after summing the patterns of
// `world_size` ranks.
float expected_allreduce_sum(size_t index, int world_size);

// Elements of `result` (`count` floats) that differ from the expected sum
// over `world_size` ranks: the #wrong of one rank.
int64_t count_wrong_elements(const float* result, size_t count, int world_size);

}  // namespace fabriclab::runner::bench
