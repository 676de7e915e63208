// What waiting costs: the arithmetic of the curriculum's cost table ($30 per
// H100-hour: 1,024 GPUs burn $512 a minute; a 10 s stall costs $85) and of
// its RCA (28 ms extra per step x 8,000 steps an hour = 224 s of every
// GPU-hour idle). Shared by lab 06's cost table (runner/report/cost_table.h),
// `fabriclab cost` and the grader's cost values (labs/SCHEMA.md), so all
// three give the same number.
//
//   idle s per GPU-hour = extra seconds per step x steps per hour
//   idle $ per hour     = idle s per GPU-hour / 3600 x GPUs x $ per GPU-hour
//   a stall's $         = stall seconds x GPUs x $ per GPU-hour / 3600
//
// Every GPU of a data-parallel job waits at the same barrier, so one GPU's
// idle seconds are every GPU's: the cluster's waste scales with its size.
#pragma once

namespace fabriclab {

constexpr double kSecondsPerHour = 3600;
constexpr double kDefaultUsdPerGpuHour = 30;  // the curriculum's H100 price

inline double cluster_usd_per_hour(double gpus, double usd_per_gpu_hour) {
  return gpus * usd_per_gpu_hour;
}

inline double idle_seconds_per_gpu_hour(double extra_s_per_step, double steps_per_hour) {
  return extra_s_per_step * steps_per_hour;
}

inline double idle_usd_per_hour(double idle_s_per_gpu_hour, double gpus, double usd_per_gpu_hour) {
  return idle_s_per_gpu_hour / kSecondsPerHour * cluster_usd_per_hour(gpus, usd_per_gpu_hour);
}

inline double stall_usd(double stall_s, double gpus, double usd_per_gpu_hour) {
  return stall_s * cluster_usd_per_hour(gpus, usd_per_gpu_hour) / kSecondsPerHour;
}

}  // namespace fabriclab
