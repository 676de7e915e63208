// One iperf3 flow over the scenario's impaired link (runner/scenario/flow_probe.h) and what the job
// paid against it; only where a probe ran.
#include "runner/report/result/parts.h"
#include "runner/report/result/scenario_events.h"

namespace fabriclab::runner::report {
namespace {

using nlohmann::json;

void compute_flow_probe(const ScenarioEvents& in, ScenarioResult& result) {
  for (const json& event : in.events) {
    if (event_kind(event) != "flow") continue;
    result.flow_gbps = number_field(event, "goodput_gbps");
    result.flow_retx_share = number_field(event, "retx_share");
  }
}

// Against the same baseline as slowdown: the flow's and the job's
// slowdowns, and how much more the job paid than the flow resent.
void relate_flow_probe(const ScenarioSummary& scenario, const ScenarioSummary* baseline,
                       ScenarioResult& result) {
  result.flow_slowdown.reset();
  result.step_slowdown.reset();
  result.amplification.reset();
  if (!baseline) return;
  const ScenarioResult& base = baseline->result;
  if (result.flow_gbps && base.flow_gbps && *result.flow_gbps > 0)
    result.flow_slowdown = *base.flow_gbps / *result.flow_gbps;
  if (scenario.status == rundir::ScenarioStatus::kCompleted && base.mean_step_ms &&
      *base.mean_step_ms > 0 && result.mean_step_ms && *result.mean_step_ms > 0)
    result.step_slowdown = *result.mean_step_ms / *base.mean_step_ms;
  if (result.step_slowdown && result.flow_retx_share && *result.flow_retx_share > 0 &&
      scenario.name != baseline->name)
    result.amplification = (*result.step_slowdown - 1) / *result.flow_retx_share;
}

}  // namespace

ResultPart flow_probe_part() {
  using K = FieldKind;
  using R = ScenarioResult;
  return {"flow_probe",
          "flow_gbps",
          {
              field("flow_gbps", "Gbit/s", K::kNumber, "the probe flow's goodput", &R::flow_gbps),
              field("flow_retx_share", "share", K::kNumber, "the share of its bytes TCP sent twice",
                    &R::flow_retx_share),
              field("step_slowdown", "ratio", K::kNumber, "mean_step_ms / the baseline's",
                    &R::step_slowdown),
              field("flow_slowdown", "ratio", K::kNumber, "the baseline's flow_gbps / this one's",
                    &R::flow_slowdown),
              field("amplification", "ratio", K::kNumber, "(step_slowdown - 1) / flow_retx_share",
                    &R::amplification),
          },
          compute_flow_probe,
          relate_flow_probe};
}

}  // namespace fabriclab::runner::report
