#include "runner/bench/allreduce_events.h"

#include "runner/bench/allreduce_rank.h"
#include "runner/bench/allreduce_table.h"

namespace fabriclab::runner::bench {

nlohmann::json allreduce_start_fields(const AllreduceRankOptions& o, int world_size) {
  return {{"world_size", world_size},
          {"steps", static_cast<int64_t>(o.sizes_bytes.size())},
          {"sizes", o.sizes_bytes},
          {"iters", o.iters},
          {"warmup_iters", o.warmup},
          {"check", o.check ? 1 : 0},
          {"channels", o.channels},
          {"algorithm", o.algorithm},
          {"transport", o.transport}};
}

nlohmann::json allreduce_step_fields(int64_t step, const SizeResult& r, int world_size) {
  const int64_t size = r.size_bytes;
  const PlaceResult& oop = r.out_of_place;
  const PlaceResult& ip = r.in_place;
  return {{"step", step},
          {"step_ms", r.step_ms},
          {"comm_ms", r.step_ms},
          {"compute_ms", 0.0},
          {"bytes", size},
          {"samples", 0},
          {"size", size},
          {"count", size / 4},
          {"time_us", oop.time_us},
          {"algbw", algbw_gb_per_s(size, oop.time_us)},
          {"busbw", busbw_gb_per_s(size, oop.time_us, world_size)},
          {"wrong", oop.wrong},
          {"ip_time_us", ip.time_us},
          {"ip_algbw", algbw_gb_per_s(size, ip.time_us)},
          {"ip_busbw", busbw_gb_per_s(size, ip.time_us, world_size)},
          {"ip_wrong", ip.wrong}};
}

nlohmann::json allreduce_final_fields(const std::vector<SizeResult>& results, int world_size,
                                      double wall_s) {
  double busbw_sum = 0;
  int64_t wrong = -1;
  for (const SizeResult& r : results) {
    for (const PlaceResult* place : {&r.out_of_place, &r.in_place}) {
      busbw_sum += busbw_gb_per_s(r.size_bytes, place->time_us, world_size);
      if (place->wrong >= 0) wrong = std::max<int64_t>(wrong, 0) + place->wrong;
    }
  }
  return {{"steps", static_cast<int64_t>(results.size())},
          {"wall_s", wall_s},
          {"avg_busbw", results.empty() ? 0.0 : busbw_sum / (2.0 * results.size())},
          {"wrong", wrong}};
}

}  // namespace fabriclab::runner::bench
