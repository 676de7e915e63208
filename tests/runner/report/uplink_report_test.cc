// Lab 09's numbers: the uplinks' counters, from a `counters` event to the
// result fields (uplink_bytes, uplinks, hot_uplink, hot_spine) and the
// uplinks table, and back through run.json's JSON.
#include <gtest/gtest.h>

#include "report_fixture.h"
#include "runner/report/scenario_summary.h"
#include "runner/report/uplink_table.h"

namespace fabriclab::runner::report {
namespace {

using testing::rank_steps;
using testing::start_event;

nlohmann::json link(uint64_t tx, uint64_t rx, bool uplink) {
  nlohmann::json l = {{"end", "fl-x/dev"}, {"tx_bytes", tx}, {"rx_bytes", rx},
                      {"tx_packets", 1},   {"rx_packets", 1}};
  if (uplink) l["uplink"] = true;
  return l;
}

// One rank, two steps; the last sample: the tenant's flow up tor0-spine1
// and down tor1-spine1, the job's bytes on spine0 both ways.
std::vector<nlohmann::json> uplink_events() {
  std::vector<nlohmann::json> events = {start_event("e", 0, 1, 2)};
  for (auto& e : rank_steps("e", 0, 1000.0, {100, 200}, {10, 20}, {2.0, 1.0})) events.push_back(e);
  events.push_back({{"event", "counters"},
                    {"ts", 1000.5},
                    {"retransmits", 0},
                    {"drops", 0},
                    {"link_bytes", 0},
                    {"links",
                     {{"r0-tor0", link(9000, 9000, false)},
                      {"tor0-spine0", link(400, 300, true)},
                      {"tor0-spine1", link(5000, 10, true)},
                      {"tor1-spine0", link(300, 400, true)},
                      {"tor1-spine1", link(10, 5000, true)}}}});
  events.push_back({{"event", "neighbour"}, {"name", "tenant"}, {"mbps", 91.5}});
  return events;
}

TEST(UplinkReport, TheUplinksCountBothWaysAndTheHotSpineSumsItsLinks) {
  const ScenarioResult r = summarize_scenario(uplink_events());
  ASSERT_TRUE(r.uplink_bytes && r.hot_uplink && r.hot_spine && r.hot_uplink_share);
  EXPECT_EQ(*r.uplink_bytes, 700 + 5010 + 700 + 5010) << "host links are not uplinks";
  EXPECT_EQ(r.bytes_by_uplink.size(), 4u);
  EXPECT_EQ(r.bytes_by_uplink.at("tor1-spine1"), 5010);
  EXPECT_EQ(*r.hot_uplink, "tor0-spine1") << "equal bytes: the first by name";
  EXPECT_NEAR(*r.hot_uplink_share, 5010.0 / 11420, 1e-9);
  EXPECT_EQ(*r.hot_spine, "spine1");

  const ScenarioResult back = nlohmann::json(r).get<ScenarioResult>();
  EXPECT_EQ(back.hot_spine, r.hot_spine);
  EXPECT_EQ(back.hot_uplink, r.hot_uplink);
  EXPECT_EQ(back.bytes_by_uplink, r.bytes_by_uplink);
}

TEST(UplinkReport, AFabricWithoutUplinksHasNoneOfTheFields) {
  std::vector<nlohmann::json> events = uplink_events();
  events[events.size() - 2]["links"] = {{"r0-sw", link(1, 1, false)}};
  const ScenarioResult r = summarize_scenario(events);
  EXPECT_FALSE(r.uplink_bytes);
  EXPECT_FALSE(nlohmann::json(r).contains("hot_spine"));
  ScenarioSummary s;
  s.name = "e";
  s.result = r;
  EXPECT_EQ(format_uplink_table({s}), "");
}

TEST(UplinkReport, TheTableShowsEachUplinkAndTheHotSpine) {
  ScenarioSummary s;
  s.name = "ecmp-a";
  s.status = rundir::ScenarioStatus::kCompleted;
  s.result = summarize_scenario(uplink_events());
  const std::string table = format_uplink_table({s});
  for (const char* expected : {"tor0-spine0", "tor1-spine1", "hot spine", "tenant Mb/s", "spine1", "91.5"})
    EXPECT_NE(table.find(expected), std::string::npos) << expected << " in\n" << table;
}

}  // namespace
}  // namespace fabriclab::runner::report
