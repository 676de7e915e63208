// The scenario's last counters sample (runner/scenario/counter_sample.h): cumulative since its
// ranks were launched.
#include <algorithm>
#include <cstdint>

#include "runner/report/result/parts.h"
#include "runner/report/result/scenario_events.h"

namespace fabriclab::runner::report {
namespace {

using nlohmann::json;

void compute_counters(const ScenarioEvents& in, ScenarioResult& result) {
  for (const json& event : in.events) {  // cumulative: the last sample holds the totals
    if (event_kind(event) != "counters") continue;
    result.retransmits = static_cast<std::int64_t>(number_field(event, "retransmits"));
    if (event.contains("spurious_retransmits"))
      result.spurious_retransmits =
          static_cast<std::int64_t>(number_field(event, "spurious_retransmits"));
    result.loss_retransmits =
        std::max<std::int64_t>(0, *result.retransmits - result.spurious_retransmits.value_or(0));
    result.drops = static_cast<std::int64_t>(number_field(event, "drops"));
    result.link_bytes = static_cast<std::int64_t>(number_field(event, "link_bytes"));
  }
}

}  // namespace

ResultPart counters_part() {
  using K = FieldKind;
  using R = ScenarioResult;
  return {"counters",
          "",
          {
              field("retransmits", "segments", K::kCount,
                    "TCP segments the ranks' namespaces retransmitted", &R::retransmits),
              field("spurious_retransmits", "segments", K::kCount,
                    "of those, the ones the receiver already had: it answered them with a "
                    "D-SACK (a tail-loss probe or a timer that fired early, not a loss)",
                    &R::spurious_retransmits),
              field("loss_retransmits", "segments", K::kCount,
                    "retransmits minus spurious_retransmits: segments resent because they were "
                    "lost (all retransmits in recordings from before D-SACKs were counted)",
                    &R::loss_retransmits),
              field("drops", "packets", K::kCount, "packets the scenario's impairment dropped",
                    &R::drops),
              field("link_bytes", "bytes", K::kCount,
                    "bytes that crossed the lab links, once per link", &R::link_bytes),
          },
          compute_counters};
}

}  // namespace fabriclab::runner::report
