// This machine's CPU in a training scenario's steps (lab 10), from the
// trainer's `cpu_ms` and `queued_ms` (doc/metrics.md: the kernel's schedstat
// of each rank's threads) and the `cores` its start event counted:
//   cpu_ms        what one rank ran on a core per step
//   queued_ms     what one rank sat ready with no core free per step
//   cpu_floor_ms  the job's CPU per step (every rank's cpu_ms summed) over
//                 the cores: no step on this machine can be shorter
//   cpu_floor_multiple  median_step_ms / cpu_floor_ms: the step in units of
//                 that floor. Flat across N when the step is this machine's
//                 CPU and the network adds nothing that grows with N
// Each a median over the steps after the first (which carries the warm-up)
// of that step's mean (or sum) over ranks. Absent where no step carries
// cpu_ms (recordings from before it, the allreduce workload).
#include <map>
#include <vector>

#include "runner/report/result/parts.h"
#include "runner/report/result/scenario_events.h"

namespace fabriclab::runner::report {
namespace {

using nlohmann::json;

struct StepCpu {
  double cpu_ms = 0, queued_ms = 0;
  int ranks = 0;
};

void compute_cpu(const ScenarioEvents& in, ScenarioResult& result) {
  std::map<int, StepCpu> by_step;
  double cores = 0;
  for (const json& event : in.events) {
    const std::string kind = event_kind(event);
    if (kind == "start" && event.contains("cores")) cores = number_field(event, "cores");
    if (kind != "step" || !event.contains("cpu_ms")) continue;
    const int step = static_cast<int>(number_field(event, "step"));
    if (step <= 1) continue;
    StepCpu& s = by_step[step];
    s.cpu_ms += number_field(event, "cpu_ms");
    s.queued_ms += number_field(event, "queued_ms");
    ++s.ranks;
  }
  if (by_step.empty()) return;
  std::vector<double> cpu, queued, floor;
  for (const auto& [step, s] : by_step) {
    cpu.push_back(s.cpu_ms / s.ranks);
    queued.push_back(s.queued_ms / s.ranks);
    if (cores > 0) floor.push_back(s.cpu_ms / cores);
  }
  result.cpu_ms = median_of(cpu);
  result.queued_ms = median_of(queued);
  if (floor.empty()) return;
  result.cpu_floor_ms = median_of(floor);
  // The timing part, earlier in the table, set the median step.
  if (*result.cpu_floor_ms > 0 && result.median_step_ms > 0)
    result.cpu_floor_multiple = result.median_step_ms / *result.cpu_floor_ms;
}

}  // namespace

ResultPart cpu_part() {
  using K = FieldKind;
  using R = ScenarioResult;
  return {"cpu",
          "cpu_ms",
          {
              field("cpu_ms", "ms", K::kNumber,
                    "median over steps of one rank's CPU time per step (mean over ranks)",
                    &R::cpu_ms),
              field("queued_ms", "ms", K::kNumber,
                    "the same for the time it was ready to run with no core free", &R::queued_ms),
              field("cpu_floor_ms", "ms", K::kNumber,
                    "median over steps of every rank's cpu_ms summed, over the machine's cores: "
                    "the shortest step this machine allows",
                    &R::cpu_floor_ms),
              field("cpu_floor_multiple", "ratio", K::kNumber,
                    "median_step_ms / cpu_floor_ms: the step in units of this machine's CPU",
                    &R::cpu_floor_multiple),
          },
          compute_cpu,
          nullptr};
}

}  // namespace fabriclab::runner::report
