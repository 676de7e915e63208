// When the steps ran: the bulk-synchronous step times (each step's slowest rank) and the wall time,
// recordings/FORMAT.md "result".
#include <algorithm>
#include <limits>
#include <map>
#include <numeric>

#include "runner/report/result/parts.h"
#include "runner/report/result/scenario_events.h"

namespace fabriclab::runner::report {
namespace {

using nlohmann::json;

// Each step's slowest rank's step_ms (every rank waits for it at the
// allreduce) and smallest comm_ms (the rank that came last waited only for
// the network), by step number; wall time from the first start to the last
// end (a step event's ts is its end).
void compute_timing(const ScenarioEvents& in, ScenarioResult& result) {
  double first_start_s = std::numeric_limits<double>::infinity();
  double last_end_s = -std::numeric_limits<double>::infinity();
  double step_ms_sum = 0, comm_ms_sum = 0;
  std::map<int, double> slowest_step_ms, network_ms;
  std::map<int, int> last_step;  // rank -> its highest step (0: started, none done)
  for (const json& event : in.events) {
    const std::string kind = event_kind(event);
    if (kind == "start") last_step.try_emplace(static_cast<int>(number_field(event, "rank")));
    if (kind != "step") continue;
    const int rank = static_cast<int>(number_field(event, "rank"));
    const int step = static_cast<int>(number_field(event, "step"));
    const double ts = number_field(event, "ts");
    const double step_ms = number_field(event, "step_ms");
    const double comm_ms = number_field(event, "comm_ms");
    first_start_s = std::min(first_start_s, ts - step_ms / 1000.0);
    last_end_s = std::max(last_end_s, ts);
    step_ms_sum += step_ms;
    comm_ms_sum += comm_ms;
    double& slowest = slowest_step_ms[step];
    slowest = std::max(slowest, step_ms);
    const auto [network, first] = network_ms.try_emplace(step, comm_ms);
    if (!first) network->second = std::min(network->second, comm_ms);
    int& highest = last_step[rank];
    highest = std::max(highest, step);
  }
  if (slowest_step_ms.empty()) return;  // no step: nothing measured

  result.wall_s = last_end_s - first_start_s;
  result.comm_share = step_ms_sum > 0 ? std::clamp(comm_ms_sum / step_ms_sum, 0.0, 1.0) : 0;
  std::vector<double> step_ms;
  for (const auto& [step, ms] : slowest_step_ms) step_ms.push_back(ms);
  result.median_step_ms = median_of(step_ms);
  result.p99_step_ms = percentile_nearest_rank(step_ms, 99);
  if (step_ms.size() > 1) {  // ordered by step: [0] is the first, with the warm-up
    result.longest_step_ms = *std::max_element(step_ms.begin() + 1, step_ms.end());
    result.mean_step_ms = std::accumulate(step_ms.begin() + 1, step_ms.end(), 0.0) /
                          static_cast<double>(step_ms.size() - 1);
  }
  std::vector<double> network;
  for (const auto& [step, ms] : network_ms) network.push_back(ms);
  result.median_network_ms = median_of(network);
  // Ranks that started but completed no step count with 0, as do ranks of
  // world_size that left no event at all.
  int every_rank = std::numeric_limits<int>::max();
  for (const auto& [rank, highest] : last_step) every_rank = std::min(every_rank, highest);
  if (declared_world_size(in.events) > static_cast<int>(last_step.size())) every_rank = 0;
  result.steps_completed = every_rank;
}

// slowdown: wall_s / the baseline's, both completed with a wall time.
void relate_timing(const ScenarioSummary& scenario, const ScenarioSummary* baseline,
                   ScenarioResult& result) {
  result.slowdown.reset();
  if (baseline && baseline->result.wall_s > 0 &&
      scenario.status == rundir::ScenarioStatus::kCompleted && result.wall_s > 0)
    result.slowdown = result.wall_s / baseline->result.wall_s;
}

}  // namespace

ResultPart timing_part() {
  using K = FieldKind;
  using R = ScenarioResult;
  return {
      "timing",
      "",
      {
          field("wall_s", "s", K::kNumber, "earliest step start to latest step end over all ranks",
                &R::wall_s),
          field("slowdown", "ratio", K::kNumber, "wall_s / the baseline's (both completed)",
                &R::slowdown),
          field("median_step_ms", "ms", K::kNumber, "median of each step's slowest rank's step_ms",
                &R::median_step_ms),
          field("p99_step_ms", "ms", K::kNumber, "their nearest-rank 99th percentile",
                &R::p99_step_ms),
          field("longest_step_ms", "ms", K::kNumber,
                "the longest after the first step: the worst stall", &R::longest_step_ms),
          field("mean_step_ms", "ms", K::kNumber,
                "their mean after the first step: what the job pays per step", &R::mean_step_ms),
          field("median_network_ms", "ms", K::kNumber,
                "median over steps of the smallest comm_ms over ranks", &R::median_network_ms),
          field("comm_share", "share", K::kNumber,
                "sum of comm_ms / sum of step_ms over all ranks' steps", &R::comm_share),
          field("steps_completed", "steps", K::kCount, "steps every rank completed",
                &R::steps_completed),
      },
      compute_timing,
      relate_timing};
}

}  // namespace fabriclab::runner::report
