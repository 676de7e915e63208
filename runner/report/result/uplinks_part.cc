// What a fabric with routers (leaf_spine) carried on its ToR-spine uplinks; only on such a fabric.
#include <cstdint>
#include <map>
#include <string>

#include "runner/report/result/parts.h"
#include "runner/report/result/scenario_events.h"
#include "runner/report/result/uplink_load.h"

namespace fabriclab::runner::report {
namespace {

using nlohmann::json;

// One sample's router links: what each carried (both directions), the
// hottest (uplink_load.h) and the upper router whose uplinks carried the
// most. A sample without uplinks leaves the row as the last one with them.
void add_sample(const json& links, ScenarioResult& result) {
  int uplinks = 0;
  result.bytes_by_uplink.clear();
  for (const auto& [name, link] : links.items()) {
    if (!link.is_object() || !link.value("uplink", false)) continue;
    ++uplinks;
    result.bytes_by_uplink[name] =
        link.value("tx_bytes", std::int64_t{0}) + link.value("rx_bytes", std::int64_t{0});
  }
  if (uplinks == 0) return;
  std::map<std::string, std::int64_t> by_spine;  // "tor0-spine1": LOWER-UPPER
  for (const auto& [name, bytes] : result.bytes_by_uplink)
    by_spine[name.substr(name.find('-') + 1)] += bytes;
  std::int64_t spine_max = 0;
  result.hot_spine.reset();
  for (const auto& [spine, bytes] : by_spine)
    if (bytes > spine_max) spine_max = bytes, result.hot_spine = spine;
  const UplinkLoad load = uplink_load(result.bytes_by_uplink);
  result.uplink_bytes = load.total_bytes;
  result.hot_uplink = load.hottest;
  result.hot_uplink_share = load.hottest_share;
}

void compute_uplinks(const ScenarioEvents& in, ScenarioResult& result) {
  for (const json& event : in.events) {
    if (event_kind(event) == "counters" && event.contains("links") && event["links"].is_object())
      add_sample(event["links"], result);
  }
}

}  // namespace

ResultPart uplinks_part() {
  using K = FieldKind;
  using R = ScenarioResult;
  return {"uplinks",
          "uplink_bytes",
          {
              field("uplink_bytes", "bytes", K::kCount,
                    "bytes the uplinks carried, both directions", &R::uplink_bytes),
              field("hot_uplink", "", K::kWord, "the uplink that carried the most", &R::hot_uplink),
              field("hot_uplink_share", "share", K::kNumber, "its share of uplink_bytes",
                    &R::hot_uplink_share),
              field("uplinks", "bytes", K::kBytesByName, "uplink_bytes per uplink",
                    &R::bytes_by_uplink),
              field("hot_spine", "", K::kWord, "the upper router whose uplinks carried the most",
                    &R::hot_spine),
          },
          compute_uplinks};
}

}  // namespace fabriclab::runner::report
