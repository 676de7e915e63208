// What one scenario's slowdown costs, from its result and its baseline's
// (lab 06; the arithmetic is common/wait_cost.h's):
//
//   step_s           the scenario's wall time / its steps completed: the
//                    pace of the whole job, stalls included (a median would
//                    hide them, and they cost as much as any other wait)
//   extra_ms         step_s - the baseline's step_s, per step (negative when
//                    the scenario ran faster: noise, no idle time)
//   steps_per_hour   3600 / step_s: steps the slowed job makes in an hour
//   idle_s_per_gpu_hour  max(0, extra) x steps_per_hour: the seconds of
//                    each GPU-hour every GPU spent waiting -- the
//                    curriculum's RCA arithmetic (28 ms x 8,000 = 224 s)
//   stall_ms         the scenario's longest step after the first minus the
//                    baseline's longest step after the first (never below
//                    0): what its worst step added. Like for like: the first
//                    steps of every scenario carry warm-up (the second one
//                    too: ~2x a normal step here), so a worst step measured
//                    against a typical one would price the warm-up
//
// Only for a scenario with a slowdown (it and its baseline completed), so
// both paces are whole runs. Pure functions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "runner/report/scenario_summary.h"

namespace fabriclab::runner::report {

struct WaitCost {
  double step_s = 0;
  double baseline_step_s = 0;
  double extra_ms = 0;
  double steps_per_hour = 0;
  double idle_s_per_gpu_hour = 0;
  std::optional<double> stall_ms;  // null without a longest step
};

// nullopt when the scenario has no slowdown, or either has no steps.
std::optional<WaitCost> wait_cost(const ScenarioResult& scenario, const ScenarioResult& baseline);

// The same for a summarized run: the summary of `name`'s baseline (its
// `baseline`, else "clean") found among `summaries`.
std::optional<WaitCost> wait_cost(const ScenarioSummary& scenario,
                                  const std::vector<ScenarioSummary>& summaries);

// A scenario of `summaries` that has a cost, with it.
struct PricedScenario {
  const ScenarioSummary* summary;
  WaitCost cost;
};
// Every scenario that has a cost, in run order; only those named in `only`
// when it is not empty. Points into `summaries`.
std::vector<PricedScenario> priced_scenarios(const std::vector<ScenarioSummary>& summaries,
                                             const std::vector<std::string>& only = {});

}  // namespace fabriclab::runner::report
