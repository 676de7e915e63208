// The alpha-beta model fitted to an allreduce sweep (alpha_beta_fit.h, lab
// 11); only in allreduce scenarios whose start event names the algorithm
// (recordings from before the `algorithm` parameter have no fit).
#include <map>
#include <string>

#include "common/allreduce_algorithms.h"
#include "runner/report/alpha_beta_fit.h"
#include "runner/report/result/parts.h"
#include "runner/report/result/scenario_events.h"

namespace fabriclab::runner::report {
namespace {

using nlohmann::json;

std::string algorithm_of(const std::vector<json>& events) {
  for (const json& event : events)
    if (event_kind(event) == "start" && event.contains("algorithm") &&
        event["algorithm"].is_string())
      return event["algorithm"].get<std::string>();
  return "";
}

// Each size's out-of-place time averaged over ranks (as the busbw column),
// for the sizes every rank of the job measured.
std::vector<FitPoint> points_of(const std::vector<json>& events, int world_size) {
  struct Sum {
    double bytes = 0, time_us = 0;
    int ranks = 0;
  };
  std::map<int, Sum> by_step;
  for (const json& event : events) {
    if (event_kind(event) != "step" || !event.contains("size") || !event.contains("time_us"))
      continue;
    Sum& sum = by_step[static_cast<int>(number_field(event, "step"))];
    sum.bytes = number_field(event, "size");
    sum.time_us += number_field(event, "time_us");
    ++sum.ranks;
  }
  std::vector<FitPoint> points;
  for (const auto& [step, sum] : by_step)
    if (sum.ranks >= world_size) points.push_back({sum.bytes, sum.time_us / sum.ranks});
  return points;
}

void compute_alpha_beta(const ScenarioEvents& in, ScenarioResult& result) {
  const std::string algorithm = algorithm_of(in.events);
  if (algorithm.empty()) return;
  result.algorithm = algorithm;
  const int world_size = declared_world_size(in.events);
  const int steps = allreduce_latency_steps(algorithm, world_size);
  result.fit_points = points_of(in.events, world_size);
  const std::optional<AlphaBetaFit> fit = fit_alpha_beta(result.fit_points, steps);
  if (!fit) return;
  result.fit_steps = steps;
  result.fit_alpha_ms = fit->alpha_us / 1e3;
  result.fit_latency_ms = fit->latency_us / 1e3;
  // busbw's convention (doc/allreduce_bench.md): algbw x 2(N-1)/N, GB/s.
  result.fit_busbw_gb_per_s = fit->bytes_per_us / 1e3 * 2.0 * (world_size - 1) / world_size;
  result.crossover_bytes = fit->crossover_bytes;
  result.fit_error = fit->worst_error;
  result.fit_predicted_us = fit->predicted_us;
}

}  // namespace

ResultPart alpha_beta_part() {
  using K = FieldKind;
  using R = ScenarioResult;
  return {"alpha_beta",
          "algorithm",
          {
              field("algorithm", "", K::kWord, "the allreduce algorithm the ranks ran",
                    &R::algorithm),
              field("fit_steps", "steps", K::kCount,
                    "sequential exchanges of one allreduce (ring 2(N-1), halving_doubling 2 log2 N)",
                    &R::fit_steps),
              field("fit_alpha_ms", "ms", K::kNumber, "fitted cost of one exchange (alpha)",
                    &R::fit_alpha_ms),
              field("fit_latency_ms", "ms", K::kNumber, "fitted alpha x steps: the round trips' time",
                    &R::fit_latency_ms),
              field("fit_busbw_gb_per_s", "GB/s", K::kNumber,
                    "fitted bandwidth, as busbw (x 2(N-1)/N)", &R::fit_busbw_gb_per_s),
              field("crossover_bytes", "bytes", K::kNumber,
                    "size where alpha x steps = bytes / bandwidth", &R::crossover_bytes),
              field("fit_error", "share", K::kNumber,
                    "largest |predicted - measured| / measured over the sizes", &R::fit_error),
          },
          compute_alpha_beta};
}

}  // namespace fabriclab::runner::report
