// The message sizes of an allreduce sweep, as nccl-tests steps them:
// minbytes, minbytes x stepfactor, ... up to maxbytes, each rounded down to
// whole fp32 elements (at least one). One definition for `fabriclab bench
// allreduce` (-b/-e/-f) and the `allreduce` workload (minbytes, maxbytes,
// stepfactor), so a lab's sweep and the bench's are the same rows.
// Pure function, thread-safe.
#pragma once

#include <cstdint>
#include <vector>

namespace fabriclab::runner {

// Requires min_bytes >= 1, max_bytes >= min_bytes, step_factor >= 2.
std::vector<int64_t> message_sizes(int64_t min_bytes, int64_t max_bytes, int64_t step_factor);

}  // namespace fabriclab::runner
