#include "runner/report/wait_cost.h"

#include <algorithm>

#include "common/wait_cost.h"

namespace fabriclab::runner::report {

std::optional<WaitCost> wait_cost(const ScenarioResult& scenario, const ScenarioResult& baseline) {
  if (!scenario.slowdown || scenario.steps_completed <= 0 || baseline.steps_completed <= 0 ||
      scenario.wall_s <= 0 || baseline.wall_s <= 0) {
    return std::nullopt;
  }
  WaitCost cost;
  cost.step_s = scenario.wall_s / scenario.steps_completed;
  cost.baseline_step_s = baseline.wall_s / baseline.steps_completed;
  cost.extra_ms = (cost.step_s - cost.baseline_step_s) * 1000;
  cost.steps_per_hour = kSecondsPerHour / cost.step_s;
  cost.idle_s_per_gpu_hour =
      idle_seconds_per_gpu_hour(std::max(0.0, cost.extra_ms / 1000), cost.steps_per_hour);
  if (scenario.longest_step_ms && baseline.longest_step_ms)
    cost.stall_ms = std::max(0.0, *scenario.longest_step_ms - *baseline.longest_step_ms);
  return cost;
}

std::optional<WaitCost> wait_cost(const ScenarioSummary& scenario,
                                  const std::vector<ScenarioSummary>& summaries) {
  const std::string baseline = scenario.baseline.value_or("clean");
  if (baseline.empty() || baseline == scenario.name) return std::nullopt;
  for (const ScenarioSummary& s : summaries) {
    if (s.name == baseline) return wait_cost(scenario.result, s.result);
  }
  return std::nullopt;
}

std::vector<PricedScenario> priced_scenarios(const std::vector<ScenarioSummary>& summaries,
                                             const std::vector<std::string>& only) {
  std::vector<PricedScenario> out;
  for (const ScenarioSummary& s : summaries) {
    if (!only.empty() && std::find(only.begin(), only.end(), s.name) == only.end()) continue;
    if (auto cost = wait_cost(s, summaries)) out.push_back({&s, *cost});
  }
  return out;
}

}  // namespace fabriclab::runner::report
