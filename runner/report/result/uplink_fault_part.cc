// A fabric uplink that failed while the job ran (`link_fault` on an uplink,
// runner/scenario/uplink_fault.h): where its flows went and what that cost,
// phase by phase -- before the link went down, rerouted (its routes
// withdrawn, until it came back), after its routes were restored. Only
// where an uplink failed (an `uplink_phases` event).
#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runner/report/result/parts.h"
#include "runner/report/result/scenario_events.h"

namespace fabriclab::runner::report {
namespace {

using nlohmann::json;

std::optional<double> median(std::vector<double> values) {
  if (values.empty()) return std::nullopt;
  std::sort(values.begin(), values.end());
  const size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

// The share of a phase's uplink bytes (both directions, every uplink) that
// went through `spine`'s uplinks ("tor0-spine1": LOWER-UPPER); null when the
// uplinks carried nothing then.
std::optional<double> spine_share(const json& phase, const std::string& spine) {
  double all = 0, through = 0;
  const json bytes_by_link = phase.value("bytes", json::object());  // alive through the loop
  for (const auto& [name, link] : bytes_by_link.items()) {
    const double bytes = link.value("up", 0.0) + link.value("down", 0.0);
    all += bytes;
    if (name.substr(name.find('-') + 1) == spine) through += bytes;
  }
  if (all <= 0) return std::nullopt;
  return through / all;
}

// The job's step intervals (each step's completion -- its last rank's end --
// minus the previous one's) whose both ends fall in [from, to).
std::optional<double> median_step_ms(const std::map<int, double>& step_end, double from, double to) {
  std::vector<double> intervals;
  std::optional<double> previous;
  for (const auto& [step, end] : step_end) {
    if (previous && *previous >= from && end < to) intervals.push_back((end - *previous) * 1000);
    previous = end;
  }
  return median(intervals);
}

void compute_uplink_fault(const ScenarioEvents& in, ScenarioResult& result) {
  std::map<int, double> step_end;
  std::map<std::string, double> at;  // event kind -> its first ts
  const json* phases = nullptr;
  double first_ts = 0, last_ts = 0;
  bool any = false;
  for (const json& event : in.events) {
    const std::string kind = event_kind(event);
    const double ts = event.value("ts", 0.0);
    if (!any || ts < first_ts) first_ts = ts;
    last_ts = std::max(last_ts, ts);
    any = true;
    if (kind == "step") {
      const int step = static_cast<int>(number_field(event, "step"));
      auto [it, fresh] = step_end.emplace(step, ts);
      if (!fresh) it->second = std::max(it->second, ts);
    } else if (kind == "link_down" || kind == "route_withdrawn" || kind == "link_up" ||
               kind == "route_restored") {
      at.emplace(kind, ts);
      if (kind == "route_withdrawn") result.blackhole_s = event.value("after_down_s", 0.0);
    } else if (kind == "uplink_phases") {
      phases = &event;
    }
  }
  if (!phases) return;
  const json links = phases->value("links", json::array());
  if (links.empty() || !links[0].is_string()) return;
  const std::string uplink = links[0].get<std::string>();
  result.failed_uplink = uplink;
  result.failed_spine = uplink.substr(uplink.find('-') + 1);
  for (const json& phase : phases->value("phases", json::array())) {
    const std::string name = phase.value("phase", "");
    const std::optional<double> share = spine_share(phase, *result.failed_spine);
    if (name == "before") result.failed_spine_share_before = share;
    if (name == "rerouted") result.failed_spine_share_rerouted = share;
    if (name == "after") result.failed_spine_share_after = share;
  }
  if (result.failed_spine_share_rerouted)
    result.survivor_share_rerouted = 1 - *result.failed_spine_share_rerouted;
  // Step 1 carries the job's start (connections, the first batch): not a step of the phase.
  const double after_first = step_end.empty() ? first_ts : step_end.begin()->second;
  if (at.count("link_down"))
    result.step_ms_before = median_step_ms(step_end, after_first, at["link_down"]);
  if (at.count("route_withdrawn") && at.count("link_up"))
    result.step_ms_rerouted = median_step_ms(step_end, at["route_withdrawn"], at["link_up"]);
  if (at.count("route_restored"))
    result.step_ms_after = median_step_ms(step_end, at["route_restored"], last_ts + 1);
  if (result.step_ms_before && result.step_ms_rerouted && *result.step_ms_before > 0)
    result.rerouted_slowdown = *result.step_ms_rerouted / *result.step_ms_before;
}

}  // namespace

ResultPart uplink_fault_part() {
  using K = FieldKind;
  using R = ScenarioResult;
  return {"uplink_fault",
          "failed_uplink",
          {
              field("failed_uplink", "", K::kWord, "the uplink that failed (link_down's links)",
                    &R::failed_uplink),
              field("failed_spine", "", K::kWord, "the spine at its upper end", &R::failed_spine),
              field("blackhole_s", "s", K::kNumber,
                    "from the link going down until its routes were withdrawn (the detection time "
                    "as the runner kept it)",
                    &R::blackhole_s),
              field("step_ms_before", "ms", K::kNumber,
                    "the job's median step before the link went down (step 1 left out)",
                    &R::step_ms_before),
              field("step_ms_rerouted", "ms", K::kNumber,
                    "the job's median step while the routes were withdrawn and the link down",
                    &R::step_ms_rerouted),
              field("step_ms_after", "ms", K::kNumber,
                    "the job's median step after the routes were restored", &R::step_ms_after),
              field("rerouted_slowdown", "x", K::kNumber, "step_ms_rerouted / step_ms_before",
                    &R::rerouted_slowdown),
              field("failed_spine_share_before", "share", K::kNumber,
                    "the failed spine's share of all uplink bytes before the link went down",
                    &R::failed_spine_share_before),
              field("failed_spine_share_rerouted", "share", K::kNumber,
                    "its share while its routes were withdrawn", &R::failed_spine_share_rerouted),
              field("failed_spine_share_after", "share", K::kNumber,
                    "its share after the routes were restored", &R::failed_spine_share_after),
              field("survivor_share_rerouted", "share", K::kNumber,
                    "the other spines' share while the routes were withdrawn",
                    &R::survivor_share_rerouted),
          },
          compute_uplink_fault,
          nullptr};
}

}  // namespace fabriclab::runner::report
