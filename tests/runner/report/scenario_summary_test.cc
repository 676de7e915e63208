// The result math on hand-made events whose answers are worked out below.
#include "runner/report/scenario_summary.h"
#include "runner/report/cost_table.h"
#include "runner/report/summary_table.h"

#include <gtest/gtest.h>

#include <regex>

#include "common/input_error.h"
#include "report_fixture.h"

namespace fabriclab::runner::report {
namespace {

using testing::rank_steps;
using testing::start_event;
using testing::uniform_scenario;

// Two ranks, four steps. Per step, the slowest rank: 105, 110, 130, 400 ms.
std::vector<nlohmann::json> two_rank_events() {
  std::vector<nlohmann::json> events = {start_event("s", 0, 2, 4), start_event("s", 1, 2, 4)};
  auto add = [&](const std::vector<nlohmann::json>& more) {
    events.insert(events.end(), more.begin(), more.end());
  };
  add(rank_steps("s", 0, 1000.0, {100, 110, 120, 400}, {10, 20, 30, 300}, {2.0, 1.5, 1.0, 0.5}));
  add(rank_steps("s", 1, 1000.0, {105, 100, 130, 390}, {15, 10, 40, 290}, {2.1, 1.6, 1.1, 0.7}));
  events.push_back(
      {{"event", "eval"}, {"scenario", "s"}, {"rank", 0}, {"step", 2}, {"accuracy", 0.81}});
  events.push_back(
      {{"event", "eval"}, {"scenario", "s"}, {"rank", 0}, {"step", 4}, {"accuracy", 0.86}});
  events.push_back({{"event", "counters"}, {"retransmits", 5}, {"drops", 1}, {"link_bytes", 1000}});
  events.push_back(
      {{"event", "counters"}, {"retransmits", 12}, {"drops", 3}, {"link_bytes", 1000000}});
  return events;
}

TEST(ScenarioSummary, StepTimesAreTheSlowestRankPerStep) {
  const ScenarioResult result = summarize_scenario(two_rank_events());
  EXPECT_DOUBLE_EQ(result.median_step_ms, 120.0);  // (110 + 130) / 2
  EXPECT_DOUBLE_EQ(result.p99_step_ms, 400.0);     // ceil(0.99 * 4) = 4th of 4
  // The slowest per step: 105, 110, 130, 400. The mean leaves the first
  // out and keeps the long last step a median hides.
  ASSERT_TRUE(result.mean_step_ms);
  EXPECT_DOUBLE_EQ(*result.mean_step_ms, (110.0 + 130 + 400) / 3);
  EXPECT_DOUBLE_EQ(*nlohmann::json(result).get<ScenarioResult>().mean_step_ms,
                   *result.mean_step_ms);
}

TEST(ScenarioSummary, NetworkTimeIsTheLastArrivingRanksWaitPerStep) {
  // Per step, the smaller comm_ms of the two ranks: 10, 10, 30, 290; median (10 + 30) / 2.
  const ScenarioResult result = summarize_scenario(two_rank_events());
  ASSERT_TRUE(result.median_network_ms);
  EXPECT_DOUBLE_EQ(*result.median_network_ms, 20.0);
  const nlohmann::json json = result;
  EXPECT_EQ(json["median_network_ms"], 20.0);
  nlohmann::json older = json;
  older.erase("median_network_ms");  // a recording from before the field
  EXPECT_FALSE(older.get<ScenarioResult>().median_network_ms);
}

TEST(ScenarioSummary, WallIsFirstStepStartToLastStepEndOverRanks) {
  // Rank 0 ends at 1000 + 0.730, rank 1 at 1000 + 0.725; both start at 1000.
  EXPECT_NEAR(summarize_scenario(two_rank_events()).wall_s, 0.730, 1e-9);
}

TEST(ScenarioSummary, CommShareLossAccuracyAndCounters) {
  const ScenarioResult result = summarize_scenario(two_rank_events());
  EXPECT_NEAR(result.comm_share, 715.0 / 1455.0, 1e-12);
  ASSERT_TRUE(result.final_loss);
  EXPECT_DOUBLE_EQ(*result.final_loss, 0.6);  // (0.5 + 0.7) / 2
  ASSERT_TRUE(result.accuracy);
  EXPECT_DOUBLE_EQ(*result.accuracy, 0.86);  // the last eval
  EXPECT_EQ(result.retransmits, 12);         // the last counters sample
  EXPECT_EQ(result.drops, 3);
  EXPECT_EQ(result.link_bytes, 1000000);
  EXPECT_EQ(result.steps_completed, 4);
  EXPECT_FALSE(result.slowdown);  // only compute_slowdowns sets it
}

TEST(ScenarioSummary, StalledScenarioCountsStepsEveryRankCompleted) {
  std::vector<nlohmann::json> events = {start_event("s", 0, 2, 80), start_event("s", 1, 2, 80)};
  for (const auto& e : rank_steps("s", 0, 50, {100, 100, 100}, {0, 0, 0}, {2.0, 1.8, 1.6}))
    events.push_back(e);
  for (const auto& e : rank_steps("s", 1, 50, {100, 100}, {0, 0}, {2.0, 1.9})) events.push_back(e);
  const ScenarioResult result = summarize_scenario(events);
  EXPECT_EQ(result.steps_completed, 2);
  EXPECT_NEAR(*result.final_loss, (1.6 + 1.9) / 2, 1e-12);  // each rank's last step
  EXPECT_NEAR(result.wall_s, 0.3, 1e-9);
  EXPECT_FALSE(result.accuracy);
  EXPECT_FALSE(result.retransmits);
}

TEST(ScenarioSummary, RankWithoutStepsMeansZeroStepsCompleted) {
  std::vector<nlohmann::json> events = {start_event("s", 0, 2, 80)};  // rank 1 never started
  for (const auto& e : rank_steps("s", 0, 50, {100}, {0}, {2.0})) events.push_back(e);
  EXPECT_EQ(summarize_scenario(events).steps_completed, 0);
}

TEST(ScenarioSummary, NoEventsGivesEmptyResult) {
  const ScenarioResult result = summarize_scenario({});
  EXPECT_EQ(result.wall_s, 0);
  EXPECT_EQ(result.steps_completed, 0);
  EXPECT_FALSE(result.final_loss);
}

TEST(ScenarioSummary, WrongFieldTypeIsAnInputError) {
  std::vector<nlohmann::json> events = two_rank_events();
  events[3]["step_ms"] = "slow";
  EXPECT_THROW(summarize_scenario(events), InputError);
}

TEST(Percentiles, NearestRankAndMedian) {
  std::vector<double> hundred;
  for (int i = 100; i >= 1; --i) hundred.push_back(i);
  EXPECT_DOUBLE_EQ(percentile_nearest_rank(hundred, 99), 99);
  EXPECT_DOUBLE_EQ(percentile_nearest_rank(hundred, 100), 100);
  EXPECT_DOUBLE_EQ(percentile_nearest_rank({7}, 99), 7);
  EXPECT_DOUBLE_EQ(median_of(hundred), 50.5);
  EXPECT_DOUBLE_EQ(median_of({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(median_of({}), 0);
}

ScenarioSummary summary(const std::string& name, const std::string& status, double wall_s) {
  ScenarioSummary s;
  s.name = name;
  s.status = rundir::scenario_status_from_string(status);
  s.result.wall_s = wall_s;
  return s;
}

TEST(Slowdowns, RatioToCleanForCompletedScenarios) {
  std::vector<ScenarioSummary> all = {summary("clean", "completed", 10),
                                      summary("latency", "completed", 25),
                                      summary("stall", "stalled", 30)};
  compute_slowdowns(all);
  EXPECT_DOUBLE_EQ(*all[0].result.slowdown, 1.0);
  EXPECT_DOUBLE_EQ(*all[1].result.slowdown, 2.5);
  EXPECT_FALSE(all[2].result.slowdown);  // a stall's wall is only a lower bound
}

TEST(Slowdowns, NullWithoutACompletedClean) {
  std::vector<ScenarioSummary> missing = {summary("latency", "completed", 25)};
  compute_slowdowns(missing);
  EXPECT_FALSE(missing[0].result.slowdown);

  std::vector<ScenarioSummary> stalled_clean = {summary("clean", "stalled", 10),
                                                summary("latency", "completed", 25)};
  compute_slowdowns(stalled_clean);
  EXPECT_FALSE(stalled_clean[1].result.slowdown);

  std::vector<ScenarioSummary> other_name = {summary("base", "completed", 10),
                                             summary("latency", "completed", 25)};
  compute_slowdowns(other_name, "base");
  EXPECT_DOUBLE_EQ(*other_name[1].result.slowdown, 2.5);
}

TEST(Slowdowns, EachAgainstItsOwnBaseline) {
  std::vector<ScenarioSummary> all = {summary("clean", "completed", 10),
                                      summary("long", "completed", 12),
                                      summary("long-linux", "completed", 18),
                                      summary("other", "completed", 30)};
  all[1].baseline = "";      // another workload, no yardstick
  all[2].baseline = "long";  // the same workload, another setting
  compute_slowdowns(all);
  EXPECT_DOUBLE_EQ(*all[0].result.slowdown, 1.0);
  EXPECT_FALSE(all[1].result.slowdown);
  EXPECT_DOUBLE_EQ(*all[2].result.slowdown, 1.5);
  EXPECT_DOUBLE_EQ(*all[3].result.slowdown, 3.0) << "no baseline recorded: clean, as before";
  // Two baselines: the column says "x base", a note says which is whose.
  const std::string table = format_summary_table(all);
  EXPECT_TRUE(std::regex_search(table, std::regex("status +s +base +ms"))) << table;
  EXPECT_NE(table.find("x base: wall / its baseline's wall"), std::string::npos) << table;
  EXPECT_NE(table.find("  against clean: clean, other\n"), std::string::npos) << table;
  EXPECT_NE(table.find("  against long: long-linux\n"), std::string::npos) << table;
  EXPECT_NE(table.find("  none (another workload): long\n"), std::string::npos) << table;
}

// Lab 09: every placement against same-host, no clean scenario at all.
TEST(Slowdowns, OneOtherBaselineNamesTheColumn) {
  std::vector<ScenarioSummary> all = {summary("same-host", "completed", 10),
                                      summary("cross-spine", "completed", 14)};
  all[0].baseline = "";
  all[1].baseline = "same-host";
  compute_slowdowns(all);
  EXPECT_DOUBLE_EQ(*all[1].result.slowdown, 1.4);
  const std::string table = format_summary_table(all);
  EXPECT_TRUE(std::regex_search(table, std::regex("status +s +same-host +ms"))) << table;
  EXPECT_NE(table.find("x same-host: wall / same-host's wall"), std::string::npos) << table;
  EXPECT_EQ(table.find("x clean"), std::string::npos) << table;
  EXPECT_EQ(table.find("not shown"), std::string::npos)
      << "the baseline itself has none, and needs no note\n" << table;
}

// Lab 02: latency against clean, long-steps-linux against long-steps.
TEST(Slowdowns, AScenarioAgainstAnotherScenarioIsNotCalledXClean) {
  std::vector<ScenarioSummary> all = {summary("clean", "completed", 10),
                                      summary("latency", "completed", 20),
                                      summary("long-steps", "completed", 30),
                                      summary("long-steps-linux", "completed", 45)};
  all[0].baseline = "clean";
  all[1].baseline = "clean";
  all[2].baseline = "";
  all[3].baseline = "long-steps";
  for (ScenarioSummary& s : all) s.result.steps_completed = 10;  // the cost table prices steps
  compute_slowdowns(all);
  const std::string table = format_summary_table(all);
  EXPECT_EQ(table.find("x clean"), std::string::npos) << table;
  EXPECT_NE(table.find("  against long-steps: long-steps-linux\n"), std::string::npos) << table;
  EXPECT_NE(table.find(" 1.50 "), std::string::npos) << "45 s / long-steps' 30 s\n" << table;
  const std::string cost = format_cost_table(all);
  EXPECT_EQ(cost.find("x clean"), std::string::npos) << cost;
  EXPECT_NE(cost.find("x base"), std::string::npos) << cost;
  EXPECT_NE(cost.find("  against long-steps: long-steps-linux\n"), std::string::npos) << cost;
}

TEST(Slowdowns, WithoutACleanScenarioOneLineSaysSo) {
  std::vector<ScenarioSummary> all = {summary("small-2", "completed", 10),
                                      summary("large-2", "completed", 30)};
  all[0].baseline = "";
  all[1].baseline = "";
  compute_slowdowns(all);
  EXPECT_FALSE(all[0].result.slowdown);
  const std::string table = format_summary_table(all);
  EXPECT_NE(table.find("x clean: not shown where a scenario names no baseline (no clean scenario)"),
            std::string::npos)
      << table;
  EXPECT_EQ(table.find("runs another workload"), std::string::npos) << table;
}

TEST(Slowdowns, ADeadlineShowsALowerBoundOnly) {
  std::vector<ScenarioSummary> all = {summary("clean", "completed", 10),
                                      summary("loss", "deadline", 46)};
  compute_slowdowns(all);
  EXPECT_FALSE(all[1].result.slowdown) << "not a slowdown: the job did not finish";
  ASSERT_TRUE(all[1].slowdown_at_least);
  EXPECT_DOUBLE_EQ(*all[1].slowdown_at_least, 4.6);
  EXPECT_NE(format_summary_table(all).find(" >4.6 "), std::string::npos) << format_summary_table(all);
}

TEST(ResultJson, RoundTripsWithNulls) {
  ScenarioResult result = summarize_scenario(two_rank_events());
  result.slowdown = 2.5;
  const nlohmann::json json = result;
  EXPECT_EQ(json["p99_step_ms"], 400.0);
  EXPECT_EQ(json["retransmits"], 12);
  const ScenarioResult back = json.get<ScenarioResult>();
  EXPECT_EQ(nlohmann::json(back), json);

  const nlohmann::json empty = ScenarioResult{};
  EXPECT_TRUE(empty["final_loss"].is_null());
  EXPECT_TRUE(empty["slowdown"].is_null());
  EXPECT_FALSE(empty.get<ScenarioResult>().accuracy);
}

TEST(ResultJson, BadObjectNamesTheField) {
  nlohmann::json json = ScenarioResult{};
  json["wall_s"] = "11 s";
  try {
    json.get<ScenarioResult>();
    FAIL() << "expected InputError";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("'wall_s'"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace fabriclab::runner::report
