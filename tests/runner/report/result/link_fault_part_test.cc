// The link_fault result part (runner/report/result/link_fault_part.cc): the
// stall around a link that went down, from the events a run records.
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

// Two ranks, steps every 0.1 s; the link goes down at 100.25 after step 2
// (2 s) and the job's next step ends 3.1 s later, on the slower rank.
std::vector<json> flapped_job() {
  std::vector<json> events = {step(0, 1, 100.1), step(1, 1, 100.1), step(0, 2, 100.2),
                              step(1, 2, 100.21)};
  events.push_back({{"event", "link_down"}, {"ts", 100.25}, {"links", {"r1-sw"}},
                    {"steps_done", 2}, {"planned_down_s", 2.0}});
  events.push_back({{"event", "link_up"}, {"ts", 102.25}, {"links", {"r1-sw"}}, {"down_s", 2.0}});
  events.push_back(step(0, 3, 103.2));
  events.push_back(step(1, 3, 103.31));
  events.push_back({{"event", "tcp_backoff"}, {"ts", 103.4}, {"max_backoff", 3},
                    {"max_timeouts", 3}, {"max_rto_ms", 1608.0}, {"rto_before_ms", 201.0},
                    {"recovered_after_up_s", 0.8}, {"trace", json::array()}});
  return events;
}

TEST(LinkFaultPart, TheStallRunsFromTheStepBeforeTheFaultToTheFirstAfter) {
  const ScenarioResult result = summarize_scenario(flapped_job());
  ASSERT_TRUE(result.stall_s && result.flap_s && result.recovery_s);
  EXPECT_NEAR(*result.flap_s, 2.0, 1e-9);
  EXPECT_NEAR(*result.stall_s, 103.31 - 100.21, 1e-9);  // the slowest rank's ends
  EXPECT_NEAR(*result.recovery_s, 103.31 - 102.25, 1e-9);
  EXPECT_EQ(result.max_backoff, 3);
  EXPECT_EQ(result.max_timeouts, 3);
  EXPECT_NEAR(*result.tcp_recovered_s, 0.8, 1e-9);
  const json row = result_row_json(result);
  EXPECT_EQ(row["max_backoff"], 3);
  EXPECT_EQ(result_from_row_json(row).stall_s, result.stall_s);
}

TEST(LinkFaultPart, AScenarioWithoutAFaultHasNoneOfItsFields) {
  std::vector<json> events = {step(0, 1, 1.0), step(1, 1, 1.1)};
  const json row = result_row_json(summarize_scenario(events));
  EXPECT_FALSE(row.contains("flap_s"));
  EXPECT_FALSE(row.contains("stall_s"));
  EXPECT_FALSE(row.contains("max_backoff"));
}

TEST(LinkFaultPart, ALinkThatNeverCameBackHasNoStall) {
  std::vector<json> events = flapped_job();
  events.erase(events.begin() + 5);  // the link_up
  const ScenarioResult result = summarize_scenario(events);
  EXPECT_FALSE(result.stall_s);
  EXPECT_FALSE(result.flap_s);
}

}  // namespace
}  // namespace fabriclab::runner::report
