// Per-rank truth (issue 16): each rank's compute and wait, who reached the
// allreduce last, the straggler, and the table and timeline chart built on
// them. Hand-made events with round numbers.
#include "runner/report/rank_times.h"

#include <gtest/gtest.h>

#include "runner/report/chart_kind.h"
#include "runner/report/per_rank_table.h"
#include "runner/report/table_kind.h"
#include "runner/report/timeline_chart.h"
#include "tests/runner/report/report_fixture.h"

namespace fabriclab::runner::report {
namespace {

using nlohmann::json;
using testing::step_event;

// 4 ranks, `steps` steps of 500 ms; rank `slow` computes 400 ms and waits
// 100, the others compute 100 and wait 400 (they wait for it).
std::vector<json> slow_worker(int slow, int steps = 6) {
  std::vector<json> events;
  for (int rank = 0; rank < 4; ++rank) {
    for (int step = 1; step <= steps; ++step) {
      const double comm = rank == slow ? 100 : 400;
      json e = step_event("s", rank, step, 1000.0 + step * 0.5, 500, comm, 1.0);
      e["tx_bytes"] = 1000.0 * (rank + 1);
      events.push_back(e);
    }
  }
  return events;
}

TEST(RankTimes, TheSlowWorkerIsLastAtTheBarrierAndComputesLongest) {
  const RankView view = rank_view(slow_worker(2));
  ASSERT_EQ(view.ranks.size(), 4u);
  EXPECT_EQ(view.steps_compared, 5) << "step 1 is start-up, left out";
  ASSERT_TRUE(view.straggler);
  EXPECT_EQ(*view.straggler, 2);
  EXPECT_DOUBLE_EQ(view.ranks[2].compute_ms, 400);
  EXPECT_DOUBLE_EQ(view.ranks[2].wait_ms, 100);
  EXPECT_EQ(view.ranks[2].last_arrivals, 5);
  EXPECT_DOUBLE_EQ(view.ranks[0].wait_share, 0.8);
  EXPECT_DOUBLE_EQ(*view.ranks[1].tx_bytes_per_step, 2000);
}

TEST(RankTimes, NoStragglerWhenArrivalsVaryOrOneRank) {
  // Every step another rank arrives last: nobody holds the others up.
  std::vector<json> events;
  for (int rank = 0; rank < 3; ++rank) {
    for (int step = 1; step <= 7; ++step) {
      const double comm = (step % 3 == rank) ? 10 : 50;
      events.push_back(step_event("s", rank, step, 1000.0 + step, 100, comm, 1.0));
    }
  }
  const RankView view = rank_view(events);
  EXPECT_EQ(view.steps_compared, 6);
  EXPECT_FALSE(view.straggler);
  EXPECT_FALSE(view.ranks[0].tx_bytes_per_step) << "not measured";

  std::vector<json> one;
  for (int step = 1; step <= 4; ++step) one.push_back(step_event("s", 0, step, 1000.0 + step, 100, 0, 1.0));
  EXPECT_FALSE(rank_view(one).straggler) << "one rank waits for nobody";
}

// A counters event with each rank's round trip (ms) and retransmissions.
json counters(const std::vector<double>& rtt_ms, const std::vector<double>& retransmits) {
  json ranks = json::object();
  for (size_t r = 0; r < rtt_ms.size(); ++r)
    ranks["r" + std::to_string(r)] = {{"rtt_ms", rtt_ms[r]}, {"retransmits", retransmits[r]},
                                      {"connections", 3}};
  return {{"event", "counters"}, {"ranks", ranks}, {"retransmits", 0}, {"drops", 0},
          {"link_bytes", 0}};
}

TEST(RankTimes, ASlowLinkShowsInItsRanksRoundTripOrRetransmissions) {
  std::vector<json> delayed = slow_worker(-1);  // every rank alike
  delayed.push_back(counters({0.5, 0.6, 20.5, 3.2}, {1, 1, 0, 0}));
  delayed.push_back(counters({0.4, 0.6, 21.5, 3.0}, {1, 1, 0, 0}));
  const RankView view = rank_view(delayed);
  EXPECT_FALSE(view.straggler) << "a slow link holds every rank alike";
  ASSERT_TRUE(view.slow_link);
  EXPECT_EQ(*view.slow_link, 2);
  EXPECT_DOUBLE_EQ(*view.ranks[2].rtt_ms, 21.0) << "the median of its samples";

  std::vector<json> lossy = slow_worker(-1);
  lossy.push_back(counters({0.5, 0.5, 0.6, 0.5}, {3, 0, 84, 2}));
  EXPECT_EQ(rank_view(lossy).slow_link, 2) << "its sender retransmits";

  std::vector<json> clean = slow_worker(-1);
  clean.push_back(counters({0.4, 0.4, 0.5, 0.8}, {0, 1, 1, 3}));
  EXPECT_FALSE(rank_view(clean).slow_link) << "no rank stands out";
}

// Lab 12: a paused node's round trip is the longest, but its neighbours'
// grow too, so slow_link's "twice the others' median" may not name it.
TEST(RankTimes, LongestRoundTripNamesTheRankAheadOfEveryOther) {
  std::vector<json> paused = slow_worker(-1);
  paused.push_back(counters({7.6, 6.9, 14.2, 13.6}, {25, 35, 35, 8}));
  const ScenarioResult result = summarize_scenario(paused);
  EXPECT_FALSE(result.slow_link) << "14.2 ms is not twice the others' median 7.6";
  // r3, the neighbour it pauses, comes close: longest is all it says.
  EXPECT_EQ(result.longest_rtt, 2);
  EXPECT_EQ(json(result)["longest_rtt"], 2);

  std::vector<json> close = slow_worker(-1);
  close.push_back(counters({3.0, 3.5, 3.5, 3.4}, {0, 0, 0, 0}));
  EXPECT_FALSE(summarize_scenario(close).longest_rtt) << "two ranks share the longest";
  EXPECT_FALSE(summarize_scenario(slow_worker(-1)).longest_rtt) << "no round trips measured";
}

TEST(RankTimes, StragglerSlowLinkAndTheOthersWaitAreResultFields) {
  const ScenarioResult result = summarize_scenario(slow_worker(2));
  EXPECT_EQ(result.straggler, 2);
  EXPECT_FALSE(result.slow_link);
  ASSERT_TRUE(result.others_wait_share);
  EXPECT_DOUBLE_EQ(*result.others_wait_share, 0.8) << "ranks 0, 1 and 3 wait 400 of 500 ms";
  const json row = result;
  EXPECT_EQ(row["straggler"], 2);
  EXPECT_TRUE(row["slow_link"].is_null());
  ScenarioResult back;
  from_json(row, back);
  EXPECT_EQ(back.straggler, 2);
  EXPECT_DOUBLE_EQ(*back.others_wait_share, 0.8);
}

TEST(PerRankTable, NamesTheStragglerWithItsNumbers) {
  ScenarioSummary slow;
  slow.name = "slow-worker";
  slow.ranks = rank_view(slow_worker(3));
  ScenarioSummary clean;
  clean.name = "clean";
  clean.ranks = rank_view(slow_worker(-1));
  const std::string table = format_per_rank_table({clean, slow});
  EXPECT_NE(table.find("slow-worker: straggler r3 -- last to reach the allreduce in 5 of 5 steps; "
                       "compute 400 ms, the others' median 100 ms"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("clean: no straggler"), std::string::npos) << table;
  EXPECT_NE(table.find("slow-worker      r3       400.0     100.0       20%    4.00 kB       5/5"),
            std::string::npos)
      << table;
  EXPECT_NE(find_table("per_rank"), nullptr);
  EXPECT_EQ(format_per_rank_table({}), "");
}

TEST(TimelineChart, OneBarPerRankFirstScenarioOnTop) {
  ScenarioSeries series;
  series.name = series.label = "slow-worker";
  series.ranks = rank_view(slow_worker(1)).ranks;
  const std::string script = timeline_chart_script({series}, "t", "timeline.svg");
  EXPECT_NE(script.find("$timeline << EOD"), std::string::npos) << script;
  EXPECT_NE(script.find("1.0 400.000 100.000"), std::string::npos) << "row compute wait\n" << script;
  EXPECT_NE(script.find("'slow-worker r0' 0.0"), std::string::npos) << script;
  EXPECT_NE(script.find("set yrange [3.6:-0.6]"), std::string::npos) << script;
  EXPECT_NE(script.find("with boxxyerror"), std::string::npos) << script;
  EXPECT_NE(find_chart("timeline"), nullptr);
}

}  // namespace
}  // namespace fabriclab::runner::report
