// An allreduce sweep's figures as nccl-tests prints them (doc/allreduce_bench.md); only in
// allreduce scenarios.
#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include "runner/report/result/parts.h"
#include "runner/report/result/scenario_events.h"

namespace fabriclab::runner::report {
namespace {

using nlohmann::json;

// One message size of an allreduce sweep, over the ranks that reported it.
struct SizeAccumulator {
  double size = 0;
  double time_us_sum = 0, ip_time_us_sum = 0;
  int ranks = 0;
  std::int64_t wrong = -1;  // -1: not checked
};

double busbw_of(double size, double time_us, int ranks) {
  // doc/allreduce_bench.md: algbw = S / t (GB/s), busbw = algbw x 2(n-1)/n.
  if (time_us <= 0 || ranks < 1) return 0;
  return size / time_us / 1e3 * 2.0 * (ranks - 1) / ranks;
}

void add_wrong(std::int64_t& total, const json& event, const char* key) {
  const json value = event.value(key, json());
  if (value.is_number() && value.get<double>() >= 0)
    total = std::max<std::int64_t>(total, 0) + value.get<std::int64_t>();
}

// The steps that carry `size` and `time_us` (the allreduce workload), by
// step number; `ranks` is every rank that started or stepped.
std::map<int, SizeAccumulator> sizes_of(const std::vector<json>& events, std::set<int>& ranks) {
  std::map<int, SizeAccumulator> sizes;
  for (const json& event : events) {
    const std::string kind = event_kind(event);
    if (kind == "start" || kind == "step")
      ranks.insert(static_cast<int>(number_field(event, "rank")));
    if (kind != "step" || !event.contains("size") || !event.contains("time_us")) continue;
    SizeAccumulator& size = sizes[static_cast<int>(number_field(event, "step"))];
    size.size = number_field(event, "size");
    size.time_us_sum += number_field(event, "time_us");
    size.ip_time_us_sum += event.contains("ip_time_us") ? number_field(event, "ip_time_us")
                                                        : number_field(event, "time_us");
    ++size.ranks;
    add_wrong(size.wrong, event, "wrong");
    add_wrong(size.wrong, event, "ip_wrong");
  }
  return sizes;
}

// nccl-tests' figures from the sizes every rank of the job measured (a size
// some rank never finished does not count), each size's time the mean over
// ranks (its -a 1).
void compute_allreduce(const ScenarioEvents& in, ScenarioResult& result) {
  std::set<int> ranks;
  const std::map<int, SizeAccumulator> sizes = sizes_of(in.events, ranks);
  const int world_size = std::max(declared_world_size(in.events), static_cast<int>(ranks.size()));
  const SizeAccumulator* largest = nullptr;
  double busbw_sum = 0;
  int places = 0;
  std::int64_t wrong = -1;
  for (const auto& [step, size] : sizes) {
    if (size.ranks < world_size) continue;
    busbw_sum += busbw_of(size.size, size.time_us_sum / size.ranks, world_size) +
                 busbw_of(size.size, size.ip_time_us_sum / size.ranks, world_size);
    places += 2;
    if (size.wrong >= 0) wrong = std::max<std::int64_t>(wrong, 0) + size.wrong;
    if (!largest || size.size >= largest->size) largest = &size;
  }
  if (!largest) return;
  result.busbw_gb_per_s =
      busbw_of(largest->size, largest->time_us_sum / largest->ranks, world_size);
  result.avg_busbw_gb_per_s = busbw_sum / places;
  result.largest_size = static_cast<std::int64_t>(largest->size);
  if (wrong >= 0) result.wrong = wrong;
}

// busbw_ratio: the same sweep's largest size under two networks, both
// completed.
void relate_allreduce(const ScenarioSummary& scenario, const ScenarioSummary* baseline,
                      ScenarioResult& result) {
  result.busbw_ratio.reset();
  if (!baseline || scenario.status != rundir::ScenarioStatus::kCompleted) return;
  const ScenarioResult& base = baseline->result;
  if (result.busbw_gb_per_s && base.busbw_gb_per_s && *base.busbw_gb_per_s > 0 &&
      result.largest_size == base.largest_size)
    result.busbw_ratio = *result.busbw_gb_per_s / *base.busbw_gb_per_s;
}

}  // namespace

ResultPart allreduce_part() {
  using K = FieldKind;
  using R = ScenarioResult;
  return {"allreduce",
          "busbw_gb_per_s",
          {
              field("busbw_gb_per_s", "GB/s", K::kNumber, "the largest size's out-of-place busbw",
                    &R::busbw_gb_per_s),
              field("avg_busbw_gb_per_s", "GB/s", K::kNumber,
                    "mean busbw over every size and both places", &R::avg_busbw_gb_per_s),
              field("busbw_ratio", "ratio", K::kNumber,
                    "busbw_gb_per_s / the baseline's (same largest size)", &R::busbw_ratio),
              field("wrong", "values", K::kCount, "#wrong over ranks, sizes and places", &R::wrong),
              field("largest_size", "bytes", K::kCount, "the size busbw_gb_per_s is of",
                    &R::largest_size),
          },
          compute_allreduce,
          relate_allreduce};
}

}  // namespace fabriclab::runner::report
