// Training throughput from metrics `step` events (doc/metrics.md): the
// figure `fabriclab bench train` compares between fabriclab and PyTorch DDP.
//
// Both sides write step events with `rank`, `step` (1-based) and `ts` (wall
// clock, seconds since the epoch, taken when the step has ended), so one
// function times both. The first `warmup` steps (allocator, thread pools,
// first-touch of the buckets) are excluded:
//
//   steps_per_s = (last - warmup) / (max_r ts[r][last] - max_r ts[r][warmup])
//
// Taking the latest rank at both ends is the job's pace: training is
// bulk-synchronous, so a job is as fast as its slowest rank.
//
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace fabriclab::runner {

struct StepRate {
  double steps_per_s = 0;
  double wall_s = 0;  // from the end of step `warmup` to the end of the last step
  int64_t steps = 0;  // steps measured: last - warmup
};

// `events`: the JSON objects of every rank's metrics (other events are
// ignored). `warmup` >= 1. Throws std::runtime_error naming the rank and step
// when a rank lacks step `warmup` or the last step, when ranks disagree on
// the last step, or when the measured span is not positive.
StepRate step_rate(const std::vector<nlohmann::json>& events, int world_size, int64_t warmup);

// One JSON object per non-empty line. Throws std::runtime_error naming the
// file and line when it cannot be read or a line is not JSON.
std::vector<nlohmann::json> read_json_lines(const std::string& path);

// The median (mean of the middle two for an even count); 0 for none.
double median(std::vector<double> values);

}  // namespace fabriclab::runner
