// Lab 10's arithmetic (runner/report/slowest_link.h) and its table: the
// order statistic against cases worked out by hand, and a hand-made run
// whose tail scenario's prediction is the baseline's step plus 2(N-1)
// times the slowest of N links.
#include "runner/report/slowest_link.h"

#include <gtest/gtest.h>

#include <cmath>

#include "common/input_error.h"
#include "runner/report/slowest_of_n_chart.h"
#include "runner/report/slowest_of_n_table.h"
#include "runner/report/table_kind.h"
#include "tests/runner/report/report_fixture.h"

namespace fabriclab::runner::report {
namespace {

TEST(SlowestLink, MaxOfTwoDrawsOfTwoValuesIsTheHigherThreeTimesInFour) {
  // {1, 3}: the max of two draws is 1 only when both are 1 (1/4).
  EXPECT_DOUBLE_EQ(expected_max_of({1, 3}, 1), 2);
  EXPECT_DOUBLE_EQ(expected_max_of({1, 3}, 2), 0.25 * 1 + 0.75 * 3);
  EXPECT_DOUBLE_EQ(expected_max_of({}, 4), 0);
}

TEST(SlowestLink, UniformJitterGivesTheContinuousOrderStatistic) {
  // delay 10ms 10ms: uniform on [0, 20) ms; E[max of N] = 20 N / (N + 1).
  const auto delays = frame_delays_ms("delay 10ms 10ms");
  ASSERT_TRUE(delays);
  ASSERT_EQ(delays->size(), 4096u);
  EXPECT_NEAR(expected_max_of(*delays, 1), 10, 1e-6);
  for (int n : {2, 4, 16}) EXPECT_NEAR(expected_max_of(*delays, n), 20.0 * n / (n + 1), 1e-3) << n;
}

TEST(SlowestLink, ParetoTailGrowsWithNWhileTheMeanStays) {
  // netem's pareto table is centred (mean about 0, from -2/3 to +4 jitters):
  // delay 2ms 3ms averages about 2 ms a frame, yet the slowest of 16 about 8.
  const auto delays = frame_delays_ms("delay 2ms 3ms distribution pareto");
  ASSERT_TRUE(delays);
  EXPECT_GE(delays->front(), 0);
  EXPECT_NEAR(delays->back(), 2 + 3 * 4.0, 0.01);
  const double mean = expected_max_of(*delays, 1);
  EXPECT_NEAR(mean, 1.9, 0.05);
  double previous = mean;
  for (int n : {2, 4, 8, 16, 32}) {
    const double slowest = expected_max_of(*delays, n);
    EXPECT_GT(slowest, previous + 0.5) << n;
    previous = slowest;
  }
  EXPECT_NEAR(expected_max_of(*delays, 16), 8.2, 0.1);
}

TEST(SlowestLink, NoPredictionForWhatIsNotAnIndependentDraw) {
  EXPECT_FALSE(frame_delays_ms(""));
  EXPECT_FALSE(frame_delays_ms("delay 10ms 5ms 25%"));
  EXPECT_FALSE(frame_delays_ms("rate 100mbit"));
  // No jitter: every frame waits the delay, the slowest too.
  const auto fixed = frame_delays_ms("delay 5ms loss 1%");
  ASSERT_TRUE(fixed);
  EXPECT_DOUBLE_EQ(expected_max_of(*fixed, 8), 5);
  EXPECT_THROW(frame_delays_ms("delay soon"), InputError);
}

TEST(SlowestOfNTable, PredictsFromTheBaselineAndTheSlowestLink) {
  ASSERT_NE(find_table("slowest_of_n"), nullptr);
  std::vector<ScenarioSummary> summaries;
  for (const char* name : {"clean-4", "tail-4"}) {
    ScenarioSummary s;
    s.name = name;
    s.status = rundir::ScenarioStatus::kCompleted;
    s.baseline = "clean-4";
    const auto events = testing::uniform_scenario(name, 4, 10, name[0] == 'c' ? 20 : 80, 1000);
    s.wire = summarize_wire_bytes(events);
    s.ranks = rank_view(events);
    if (name[0] == 't') s.impair = "delay 10ms 10ms";
    s.result = summarize_scenario(events, s.wire, s.ranks);
    summaries.push_back(s);
  }
  compute_slowdowns(summaries);
  EXPECT_FALSE(summaries[0].result.predicted_step_ms);
  const ScenarioResult& tail = summaries[1].result;
  ASSERT_TRUE(tail.predicted_step_ms);
  // 20 ms + 2(4-1) x 20 x 4/5 ms = 116 ms; the average link: 20 + 6 x 10.
  EXPECT_NEAR(*tail.predicted_step_ms, 20 + 6 * 16.0, 0.01);
  EXPECT_NEAR(*tail.mean_model_step_ms, 80, 0.01);
  const std::string table = format_slowest_of_n_table(summaries);
  EXPECT_NE(table.find("116.0"), std::string::npos) << table;
  EXPECT_EQ(format_slowest_of_n_table({summaries[0]}), "");
}

// The machine's CPU in the steps (result/cpu_part.cc): per rank cpu_ms and
// queued_ms, and the job's cpu_ms over the start events' cores; the first
// step (warm-up) left out; absent where no step measured it.
TEST(CpuPart, MediansPerRankAndTheJobsFloorOverTheCores) {
  std::vector<nlohmann::json> events = testing::uniform_scenario("clean-4", 4, 5, 20, 1000);
  EXPECT_FALSE(summarize_scenario(events, summarize_wire_bytes(events), rank_view(events))
                   .cpu_ms) << "no cpu_ms: no part";
  for (nlohmann::json& e : events) {
    if (e["event"] == "start") e["cores"] = 2;
    if (e["event"] != "step") continue;
    const bool first = e["step"] == 1;
    e["cpu_ms"] = first ? 500.0 : 3.0 + e["rank"].get<int>();  // ranks 3, 4, 5, 6 ms
    e["queued_ms"] = first ? 500.0 : 1.0;
  }
  const ScenarioResult r = summarize_scenario(events, summarize_wire_bytes(events), rank_view(events));
  ASSERT_TRUE(r.cpu_ms);
  EXPECT_DOUBLE_EQ(*r.cpu_ms, 4.5);
  EXPECT_DOUBLE_EQ(*r.queued_ms, 1.0);
  ASSERT_TRUE(r.cpu_floor_ms);
  EXPECT_DOUBLE_EQ(*r.cpu_floor_ms, 18.0 / 2) << "3+4+5+6 ms over 2 cores";
  EXPECT_DOUBLE_EQ(*r.cpu_floor_multiple, 20.0 / 9) << "the 20 ms step over it";
}

TEST(SlowestOfNChart, PlotsTailAndCleanAgainstNInOrder) {
  const auto scenario = [](const std::string& name, int n, double p50, bool tail) {
    ScenarioSeries one;
    one.name = name;
    one.ranks.resize(n);
    one.result.median_step_ms = p50;
    if (tail) {
      one.result.link_delay_ms = 1.9;
      one.result.predicted_step_ms = p50 * 1.1;
      one.result.mean_model_step_ms = p50 / 2;
    }
    return one;
  };
  const std::string script = slowest_of_n_chart_script(
      {scenario("tail-16", 16, 300, true), scenario("clean-2", 2, 2, false),
       scenario("tail-2", 2, 20, true)},
      "t", "slowest_of_n.svg");
  // N ascending within each block, whatever the scenario order.
  const size_t two = script.find("\n2 20.00 22.00 10.00\n");
  const size_t sixteen = script.find("\n16 300.00 330.00 150.00\n");
  ASSERT_NE(two, std::string::npos) << script;
  ASSERT_NE(sixteen, std::string::npos) << script;
  EXPECT_LT(two, sixteen);
  EXPECT_NE(script.find("$clean << EOD\n# N median_step_ms\n2 2.00 NaN NaN\n"), std::string::npos)
      << script;
}

}  // namespace
}  // namespace fabriclab::runner::report
