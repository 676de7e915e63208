// A switch queue's ports taken together (the queue setting; the last counters sample's queues);
// only where there is one.
#include <algorithm>
#include <cstdint>

#include "runner/report/result/parts.h"
#include "runner/report/result/scenario_events.h"

namespace fabriclab::runner::report {
namespace {

using nlohmann::json;

// The last sample's ports, as one queue: counts summed, depths the deepest
// port's, in KiB.
void compute_queue(const ScenarioEvents& in, ScenarioResult& result) {
  for (const json& event : in.events) {
    if (event_kind(event) != "counters" || !event.contains("queues") ||
        !event["queues"].is_object())
      continue;
    std::int64_t marks = 0, unmarkable = 0;
    double paused_ms = 0, p50 = 0, p99 = 0, max = 0;
    for (const auto& [rank, port] : event["queues"].items()) {
      if (!port.is_object()) continue;
      marks += port.value("marked", std::int64_t{0});
      unmarkable += port.value("unmarkable", std::int64_t{0});
      paused_ms += port.value("paused_ms", 0.0);
      p50 = std::max(p50, port.value("depth_p50_bytes", 0.0) / 1024);
      p99 = std::max(p99, port.value("depth_p99_bytes", 0.0) / 1024);
      max = std::max(max, port.value("depth_max_bytes", 0.0) / 1024);
    }
    result.marks = marks;
    result.unmarkable = unmarkable;
    result.paused_ms = paused_ms;
    result.queue_p50_kb = p50;
    result.queue_p99_kb = p99;
    result.queue_max_kb = max;
  }
}

}  // namespace

ResultPart queue_part() {
  using K = FieldKind;
  using R = ScenarioResult;
  return {
      "queue",
      "marks",
      {
          field("marks", "packets", K::kCount, "packets the queue set CE on", &R::marks),
          field("unmarkable", "packets", K::kCount,
                "packets dropped because they could not be marked", &R::unmarkable),
          field("paused_ms", "ms", K::kNumber, "time its ports held the links feeding them paused",
                &R::paused_ms),
          field("queue_p50_kb", "KiB", K::kNumber, "median depth arriving packets found",
                &R::queue_p50_kb),
          field("queue_p99_kb", "KiB", K::kNumber, "99th percentile of that depth",
                &R::queue_p99_kb),
          field("queue_max_kb", "KiB", K::kNumber, "the deepest the queue was", &R::queue_max_kb),
      },
      compute_queue};
}

}  // namespace fabriclab::runner::report
