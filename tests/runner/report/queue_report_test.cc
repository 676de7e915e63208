// Lab 08's numbers: a queue's counters and the neighbour flows, from the
// events to the result fields, the queue table and the queue_depth chart.
#include <gtest/gtest.h>

#include "report_fixture.h"
#include "runner/report/chart_data.h"
#include "runner/report/queue_chart.h"
#include "runner/report/port_table.h"
#include "runner/report/queue_table.h"
#include "runner/report/scenario_summary.h"

namespace fabriclab::runner::report {
namespace {

using testing::rank_steps;
using testing::start_event;

nlohmann::json port(const char* policy, int marked, int dropped, double paused_ms,
                    uint64_t p99_bytes, uint64_t window_bytes) {
  return {{"policy", policy},   {"packets", 1000},        {"bytes", 1500000},
          {"dropped", dropped}, {"unmarkable", 2},        {"marked", marked},
          {"pauses", 3},        {"paused_ms", paused_ms}, {"depth_bytes", 0},
          {"depth_max_bytes", 65536}, {"depth_p50_bytes", 10240},
          {"depth_p99_bytes", p99_bytes}, {"window_max_bytes", window_bytes}};
}

// One rank, three steps of 100, 200, 300 ms; two counters samples with a
// queue of two ports; two neighbour flows, one of which reported nothing.
std::vector<nlohmann::json> queue_events() {
  std::vector<nlohmann::json> events = {start_event("q", 0, 1, 3)};
  for (auto& e : rank_steps("q", 0, 1000.0, {100, 200, 300}, {10, 20, 30}, {2.0, 1.0, 0.5}))
    events.push_back(e);
  events.push_back({{"event", "counters"},
                    {"ts", 1000.2},
                    {"retransmits", 1},
                    {"drops", 1},
                    {"link_bytes", 10},
                    {"ce_packets", 4},
                    {"ce_echoed", 3},
                    {"queues", {{"r0", port("ecn", 5, 1, 0, 20480, 30720)}}}});
  events.push_back({{"event", "counters"},
                    {"ts", 1000.6},
                    {"retransmits", 7},
                    {"drops", 9},
                    {"link_bytes", 20},
                    {"ce_packets", 40},
                    {"ce_echoed", 30},
                    {"queues",
                     {{"r0", port("ecn", 50, 6, 12.5, 40960, 51200)},
                      {"r1", port("ecn", 7, 3, 0.5, 8192, 4096)}}}});
  events.push_back({{"event", "neighbour"}, {"name", "noisy"}, {"mbps", 61.5}});
  events.push_back({{"event", "neighbour"}, {"name", "victim"}, {"mbps", nullptr}});
  return events;
}

TEST(QueueReport, TheLastSampleSumsThePortsAndTakesTheDeepest) {
  const ScenarioResult r = summarize_scenario(queue_events());
  ASSERT_TRUE(r.marks && r.paused_ms && r.queue_p99_kb && r.queue_max_kb && r.ce_packets);
  EXPECT_EQ(*r.marks, 57);
  EXPECT_EQ(*r.unmarkable, 4);
  EXPECT_DOUBLE_EQ(*r.paused_ms, 13.0);
  EXPECT_DOUBLE_EQ(*r.queue_p50_kb, 10.0);
  EXPECT_DOUBLE_EQ(*r.queue_p99_kb, 40.0);
  EXPECT_DOUBLE_EQ(*r.queue_max_kb, 64.0);
  EXPECT_EQ(*r.ce_packets, 40);
  EXPECT_EQ(*r.ce_echoed, 30);
  EXPECT_EQ(*r.drops, 9);
  ASSERT_EQ(r.neighbour_mbps.size(), 2u);
  EXPECT_DOUBLE_EQ(*r.neighbour_mbps.at("noisy"), 61.5);
  EXPECT_FALSE(r.neighbour_mbps.at("victim"));
}

TEST(QueueReport, TheFieldsGoThroughJsonAndAreAbsentWithoutAQueue) {
  const nlohmann::json json = summarize_scenario(queue_events());
  EXPECT_EQ(json["marks"], 57);
  EXPECT_EQ(json["noisy_mbps"], 61.5);
  EXPECT_TRUE(json["victim_mbps"].is_null());
  const ScenarioResult back = json.get<ScenarioResult>();
  EXPECT_EQ(*back.marks, 57);
  EXPECT_DOUBLE_EQ(*back.neighbour_mbps.at("noisy"), 61.5);
  EXPECT_TRUE(back.neighbour_mbps.count("victim"));

  std::vector<nlohmann::json> plain = queue_events();
  plain.resize(4);  // start, three steps: no counters, no neighbours
  const nlohmann::json none = summarize_scenario(plain);
  EXPECT_FALSE(none.contains("marks"));
  EXPECT_FALSE(none.contains("ce_packets"));
  EXPECT_FALSE(none.contains("noisy_mbps"));
}

TEST(QueueReport, TheTableHasARowPerScenarioAndAColumnPerFlow) {
  ScenarioSummary queued;
  queued.name = "ecn";
  queued.status = rundir::ScenarioStatus::kCompleted;
  queued.result = summarize_scenario(queue_events());
  ScenarioSummary clean;
  clean.name = "clean";
  clean.status = rundir::ScenarioStatus::kCompleted;
  const std::string table = format_queue_table({clean, queued});
  EXPECT_NE(table.find("noisy"), std::string::npos) << table;
  EXPECT_NE(table.find("victim"), std::string::npos);
  EXPECT_NE(table.find("61.5"), std::string::npos);
  EXPECT_NE(table.find("57"), std::string::npos);
  EXPECT_NE(table.find("40k"), std::string::npos);
  EXPECT_NE(table.find("clean"), std::string::npos);
  EXPECT_EQ(format_queue_table({clean}), "");  // no queue anywhere: no table
}

// Lab 12: one row per port, so the port that paused is named.
TEST(QueueReport, ThePortsTableHasARowPerPortWithItsPauses) {
  ScenarioSummary queued;
  queued.name = "reimaged";
  queued.status = rundir::ScenarioStatus::kCompleted;
  queued.ports = queue_events()[5]["queues"];  // the last counters sample
  const std::string table = format_port_table({queued});
  const size_t r0 = table.find("to r0");
  const size_t r1 = table.find("to r1");
  ASSERT_NE(r0, std::string::npos) << table;
  ASSERT_NE(r1, std::string::npos) << table;
  const std::string row0 = table.substr(r0, table.find('\n', r0) - r0);
  const std::string row1 = table.substr(r1, table.find('\n', r1) - r1);
  EXPECT_NE(row0.find("40k"), std::string::npos) << "r0's p99: " << row0;
  EXPECT_NE(row1.find(" 8k"), std::string::npos) << "r1's p99: " << row1;
  EXPECT_NE(row0.find(" 50 "), std::string::npos) << "r0's marks: " << row0;
  ScenarioSummary clean;
  clean.name = "clean";
  EXPECT_EQ(format_port_table({clean}), "");  // no queue anywhere: no table
}

TEST(QueueReport, TheChartPlotsEachSamplesWindowFromTheFirstStep) {
  const ScenarioSeries series = series_of("ecn", "ecn", queue_events());
  ASSERT_EQ(series.queue_depth_kb.size(), 2u);
  // The first step started at 1000.1 - 0.1 = 1000.0 s.
  EXPECT_NEAR(series.queue_depth_kb[0].first, 0.2, 1e-6);
  EXPECT_DOUBLE_EQ(series.queue_depth_kb[0].second, 30.0);
  EXPECT_DOUBLE_EQ(series.queue_depth_kb[1].second, 50.0);  // the deeper port
  const std::string script = queue_depth_chart_script({series}, "t", "queue_depth.svg");
  EXPECT_NE(script.find("0.600 50.0"), std::string::npos) << script;
  EXPECT_NE(script.find("with steps"), std::string::npos);
}

}  // namespace
}  // namespace fabriclab::runner::report
