// Each neighbour flow's figures (runner/scenario/neighbour_flow.h), one key per flow the lab names.
#include <optional>
#include <string>

#include "runner/report/result/parts.h"
#include "runner/report/result/scenario_events.h"

namespace fabriclab::runner::report {
namespace {

using nlohmann::json;

void compute_neighbours(const ScenarioEvents& in, ScenarioResult& result) {
  for (const json& event : in.events) {
    if (event_kind(event) != "neighbour") continue;
    const std::string name = event.value("name", std::string("flow"));
    const auto figure = [&](const char* key) {
      const json& value = event.value(key, json());
      return value.is_number() ? std::optional<double>(value.get<double>()) : std::nullopt;
    };
    result.neighbour_mbps[name] = figure("mbps");
    result.neighbour_rtt_ms[name] = figure("rtt_ms");
  }
}

}  // namespace

ResultPart neighbours_part() {
  using K = FieldKind;
  using R = ScenarioResult;
  return {"neighbours",
          "",
          {
              flow_field("NAME_mbps", "Mb/s", K::kNumber, "the flow's goodput", &R::neighbour_mbps),
              flow_field("NAME_rtt_ms", "ms", K::kNumber, "its sender's mean smoothed round trip",
                         &R::neighbour_rtt_ms),
          },
          compute_neighbours};
}

}  // namespace fabriclab::runner::report
