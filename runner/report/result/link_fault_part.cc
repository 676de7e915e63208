// A link that failed while the job ran (`link_fault`, runner/scenario/link_fault.h):
// how long it was down, how long the job stood still around it, and how far
// TCP's retransmission timers backed off; only where a link went down.
#include <algorithm>
#include <map>

#include "runner/report/result/parts.h"
#include "runner/report/result/scenario_events.h"

namespace fabriclab::runner::report {
namespace {

using nlohmann::json;

void compute_link_fault(const ScenarioEvents& in, ScenarioResult& result) {
  std::map<int, double> step_end;  // step -> its last rank's end: when the job completed it
  std::optional<double> down_ts, up_ts;
  for (const json& event : in.events) {
    const std::string kind = event_kind(event);
    if (kind == "step") {
      const int step = static_cast<int>(number_field(event, "step"));
      const double ts = number_field(event, "ts");
      auto [it, fresh] = step_end.emplace(step, ts);
      if (!fresh) it->second = std::max(it->second, ts);
    } else if (kind == "link_down" && event.contains("detect_s")) {
      return;  // an uplink's: routed around, no stall to measure (uplink_fault_part.cc)
    } else if (kind == "link_down" && !down_ts) {
      down_ts = number_field(event, "ts");
    } else if (kind == "link_up" && !up_ts) {
      up_ts = number_field(event, "ts");
      result.flap_s = number_field(event, "down_s");
    } else if (kind == "tcp_backoff") {
      result.max_backoff = static_cast<std::int64_t>(number_field(event, "max_backoff"));
      result.max_timeouts = static_cast<std::int64_t>(number_field(event, "max_timeouts"));
      result.max_rto_ms = number_field(event, "max_rto_ms");
      result.rto_before_ms = number_field(event, "rto_before_ms");
      const json& recovered = event.value("recovered_after_up_s", json());
      if (recovered.is_number()) result.tcp_recovered_s = recovered.get<double>();
    }
  }
  if (!down_ts || !up_ts) return;
  // The job's last step before the link went down, its first after it came back.
  std::optional<double> before, after;
  for (const auto& [step, end] : step_end) {
    if (end <= *down_ts) before = before ? std::max(*before, end) : end;
    if (end >= *up_ts && (!after || end < *after)) after = end;
  }
  if (before && after) result.stall_s = *after - *before;
  if (after) result.recovery_s = *after - *up_ts;
}

}  // namespace

ResultPart link_fault_part() {
  using K = FieldKind;
  using R = ScenarioResult;
  return {"link_fault",
          "flap_s",
          {
              field("flap_s", "s", K::kNumber, "how long the link was down (link_up's down_s)",
                    &R::flap_s),
              field("stall_s", "s", K::kNumber,
                    "from the job's last step completed before the link went down to its first "
                    "completed after it came back",
                    &R::stall_s),
              field("recovery_s", "s", K::kNumber,
                    "from the link coming back to the job's next completed step", &R::recovery_s),
              field("max_backoff", "doublings", K::kCount,
                    "the most any rank connection's retransmission timer backed off (tcpi_backoff)",
                    &R::max_backoff),
              field("max_timeouts", "timeouts", K::kCount,
                    "the most retransmission timeouts in a row on one connection (tcpi_retransmits)",
                    &R::max_timeouts),
              field("max_rto_ms", "ms", K::kNumber, "the longest retransmission timeout (tcpi_rto)",
                    &R::max_rto_ms),
              field("rto_before_ms", "ms", K::kNumber,
                    "the longest retransmission timeout just before the link went down",
                    &R::rto_before_ms),
              field("tcp_recovered_s", "s", K::kNumber,
                    "from the link coming back until no connection was backed off",
                    &R::tcp_recovered_s),
          },
          compute_link_fault,
          nullptr};
}

}  // namespace fabriclab::runner::report
