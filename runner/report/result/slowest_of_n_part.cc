// The slowest of N (lab 10): where one random delay was on every link of a
// scenario, what one frame waits on average, what the slowest of the job's
// N links waits on average (slowest_link.h), and the step time each of the
// two predicts from the baseline's (scenario_summary.h says how). Only in
// rows of scenarios whose impairment is a delay draw on all links.
#include <cstdint>

#include "runner/report/result/parts.h"
#include "runner/report/slowest_link.h"

namespace fabriclab::runner::report {
namespace {

void relate_slowest_of_n(const ScenarioSummary& scenario, const ScenarioSummary* baseline,
                         ScenarioResult& result) {
  result.link_delay_ms.reset();
  result.slowest_link_ms.reset();
  result.predicted_step_ms.reset();
  result.mean_model_step_ms.reset();
  if (!scenario.wire.world_size || *scenario.wire.world_size < 1) return;
  const auto delays = frame_delays_ms(scenario.impair);
  if (!delays) return;
  const int n = static_cast<int>(*scenario.wire.world_size);
  result.link_delay_ms = expected_max_of(*delays, 1);
  result.slowest_link_ms = expected_max_of(*delays, n);
  if (!baseline || baseline->result.median_step_ms <= 0) return;
  // A ring allreduce of N ranks is 2(N-1) phases (reduce-scatter, then
  // all-gather), each a frame on every link.
  const double phases = 2.0 * (n - 1);
  result.predicted_step_ms = baseline->result.median_step_ms + phases * *result.slowest_link_ms;
  result.mean_model_step_ms = baseline->result.median_step_ms + phases * *result.link_delay_ms;
}

}  // namespace

ResultPart slowest_of_n_part() {
  using K = FieldKind;
  using R = ScenarioResult;
  return {"slowest_of_n",
          "link_delay_ms",
          {
              field("link_delay_ms", "ms", K::kNumber,
                    "one frame's mean delay under the scenario's impair", &R::link_delay_ms),
              field("slowest_link_ms", "ms", K::kNumber,
                    "the mean of the largest of N frames' delays (N ranks)", &R::slowest_link_ms),
              field("predicted_step_ms", "ms", K::kNumber,
                    "the baseline's median_step_ms + 2(N-1) x slowest_link_ms",
                    &R::predicted_step_ms),
              field("mean_model_step_ms", "ms", K::kNumber,
                    "the baseline's median_step_ms + 2(N-1) x link_delay_ms",
                    &R::mean_model_step_ms),
          },
          nullptr,
          relate_slowest_of_n};
}

}  // namespace fabriclab::runner::report
