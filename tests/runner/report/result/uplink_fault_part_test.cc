// The uplink_fault result part (runner/report/result/uplink_fault_part.cc):
// the job's step and the failed spine's share of the uplink bytes in each
// phase of an uplink's fault, from the events a run records.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "runner/report/result/result_parts.h"
#include "runner/report/scenario_summary.h"

namespace fabriclab::runner::report {
namespace {

using nlohmann::json;

json step(int rank, int number, double ts) {
  return {{"event", "step"}, {"rank", rank}, {"step", number}, {"ts", ts}, {"step_ms", 100.0},
          {"comm_ms", 10.0}, {"loss", 1.0}};
}

json bytes(int spine0_up, int spine1_up) {
  return {{"tor0-spine0", {{"up", spine0_up}, {"down", 0}}},
          {"tor0-spine1", {{"up", spine1_up}, {"down", 0}}}};
}

// Steps every 0.2 s before the fault (ends at 100.2 .. 101.0), every 0.5 s
// while rerouted, every 0.2 s again after; spine0 carried 3/4 of the bytes
// before, none rerouted, 3/4 after.
std::vector<json> spine_failed() {
  std::vector<json> events;
  for (int s = 1; s <= 5; ++s) events.push_back(step(0, s, 100.0 + 0.2 * s));
  events.push_back({{"event", "link_down"}, {"ts", 101.05}, {"links", {"tor0-spine0"}},
                    {"detect_s", 0.3}, {"planned_down_s", 3.0}, {"steps_done", 5}});
  events.push_back({{"event", "route_withdrawn"}, {"ts", 101.35}, {"after_down_s", 0.3}});
  for (int s = 6; s <= 10; ++s) events.push_back(step(0, s, 101.4 + 0.5 * (s - 6)));
  events.push_back({{"event", "link_up"}, {"ts", 104.05}, {"links", {"tor0-spine0"}}, {"down_s", 3.0}});
  events.push_back({{"event", "route_restored"}, {"ts", 104.35}, {"after_up_s", 0.3}});
  for (int s = 11; s <= 15; ++s) events.push_back(step(0, s, 104.4 + 0.2 * (s - 11)));
  events.push_back({{"event", "uplink_phases"},
                    {"ts", 105.5},
                    {"links", {"tor0-spine0"}},
                    {"phases",
                     {{{"phase", "before"}, {"s", 1.0}, {"bytes", bytes(300, 100)}},
                      {{"phase", "blackhole"}, {"s", 0.3}, {"bytes", bytes(0, 10)}},
                      {{"phase", "rerouted"}, {"s", 2.7}, {"bytes", bytes(0, 400)}},
                      {{"phase", "recovering"}, {"s", 0.3}, {"bytes", bytes(0, 40)}},
                      {{"phase", "after"}, {"s", 1.1}, {"bytes", bytes(600, 200)}}}}});
  return events;
}

TEST(UplinkFaultPart, StepsAndTheFailedSpinesSharePerPhase) {
  const ScenarioResult result = summarize_scenario(spine_failed());
  EXPECT_EQ(result.failed_uplink, "tor0-spine0");
  EXPECT_EQ(result.failed_spine, "spine0");
  EXPECT_NEAR(*result.blackhole_s, 0.3, 1e-9);
  EXPECT_NEAR(*result.step_ms_before, 200, 1e-6);
  EXPECT_NEAR(*result.step_ms_rerouted, 500, 1e-6);
  EXPECT_NEAR(*result.step_ms_after, 200, 1e-6);
  EXPECT_NEAR(*result.rerouted_slowdown, 2.5, 1e-9);
  EXPECT_NEAR(*result.failed_spine_share_before, 0.75, 1e-9);
  EXPECT_NEAR(*result.failed_spine_share_rerouted, 0.0, 1e-9);
  EXPECT_NEAR(*result.survivor_share_rerouted, 1.0, 1e-9);
  EXPECT_NEAR(*result.failed_spine_share_after, 0.75, 1e-9);
  const json row = result_row_json(result);
  EXPECT_EQ(row["failed_uplink"], "tor0-spine0");
  EXPECT_EQ(result_from_row_json(row).step_ms_rerouted, result.step_ms_rerouted);
  // Routed around, not stalled: none of a rank link's flap fields.
  EXPECT_FALSE(row.contains("stall_s"));
  EXPECT_FALSE(row.contains("flap_s"));
}

TEST(UplinkFaultPart, AScenarioWithoutOneHasNoneOfItsFields) {
  const json row = result_row_json(summarize_scenario({step(0, 1, 1.0), step(0, 2, 1.2)}));
  EXPECT_FALSE(row.contains("failed_uplink"));
  EXPECT_FALSE(row.contains("step_ms_rerouted"));
}

}  // namespace
}  // namespace fabriclab::runner::report
