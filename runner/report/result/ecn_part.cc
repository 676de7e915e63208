// The ranks' kernels' ECN counters (runner/scenario/netns_counters.h); absent in recordings from
// before them.
#include <cstdint>

#include "runner/report/result/parts.h"
#include "runner/report/result/scenario_events.h"

namespace fabriclab::runner::report {
namespace {

using nlohmann::json;

void compute_ecn(const ScenarioEvents& in, ScenarioResult& result) {
  for (const json& event : in.events) {  // the last sample that has them
    if (event_kind(event) != "counters" || !event.contains("ce_packets")) continue;
    result.ce_packets = static_cast<std::int64_t>(number_field(event, "ce_packets"));
    result.ce_echoed = static_cast<std::int64_t>(number_field(event, "ce_echoed"));
  }
}

}  // namespace

ResultPart ecn_part() {
  using K = FieldKind;
  using R = ScenarioResult;
  return {"ecn",
          "ce_packets",
          {
              field("ce_packets", "packets", K::kCount, "CE-marked packets the ranks received",
                    &R::ce_packets),
              field("ce_echoed", "segments", K::kCount, "segments acknowledged with an ECN echo",
                    &R::ce_echoed),
          },
          compute_ecn};
}

}  // namespace fabriclab::runner::report
