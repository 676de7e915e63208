// Lab 06's arithmetic (common/wait_cost.h, runner/report/wait_cost.h) and its
// table: the curriculum's own figures come out of the formulas, and a hand-made
// run's slowdown is priced as worked out by hand below.
#include "runner/report/wait_cost.h"

#include <gtest/gtest.h>

#include "common/wait_cost.h"
#include "runner/report/cost_table.h"
#include "runner/report/table_kind.h"
#include "tests/runner/report/report_fixture.h"

namespace fabriclab::runner::report {
namespace {

using testing::uniform_scenario;

TEST(WaitCostArithmetic, GivesTheCurriculumsFigures) {
  // $30 per H100-hour: 256 GPUs $7,680/h and $128/min; 1,024 GPUs $512/min;
  // 4,096 GPUs $2,048/min; a 10 s stall on 1,024 GPUs $85.
  EXPECT_DOUBLE_EQ(cluster_usd_per_hour(256, 30), 7680);
  EXPECT_DOUBLE_EQ(cluster_usd_per_hour(256, 30) / 60, 128);
  EXPECT_DOUBLE_EQ(cluster_usd_per_hour(1024, 30) / 60, 512);
  EXPECT_DOUBLE_EQ(cluster_usd_per_hour(4096, 30) / 60, 2048);
  EXPECT_NEAR(stall_usd(10, 1024, 30), 85.33, 0.01);
  // The RCA: 28 ms extra x 8,000 steps an hour = 224 s of each GPU-hour.
  EXPECT_DOUBLE_EQ(idle_seconds_per_gpu_hour(0.028, 8000), 224);
  // ... which on 512 GPUs is 224/3600 of a $15,360 hour.
  EXPECT_NEAR(idle_usd_per_hour(224, 512, 30), 955.73, 0.01);
}

ScenarioSummary summarized(const std::string& name, int steps, double step_ms) {
  ScenarioSummary s;
  s.name = name;
  s.status = rundir::ScenarioStatus::kCompleted;
  s.result = summarize_scenario(uniform_scenario(name, 2, steps, step_ms, 1000));
  return s;
}

TEST(WaitCost, PricesTheExtraTimePerStepAgainstTheBaseline) {
  // 10 steps of 200 ms, then 10 of 250 ms with one stalled at 1,200 ms.
  std::vector<ScenarioSummary> run = {summarized("clean", 10, 200), summarized("slow", 10, 250)};
  auto stalled = uniform_scenario("slow", 2, 10, 250, 1000);
  for (nlohmann::json& e : stalled) {
    if (e["event"] == "step" && e["step"] == 5) e["step_ms"] = 1200.0;
  }
  run[1].result = summarize_scenario(stalled);
  compute_slowdowns(run);

  const auto cost = wait_cost(run[1], run);
  ASSERT_TRUE(cost);
  const double step_s = run[1].result.wall_s / 10;
  EXPECT_NEAR(cost->step_s, step_s, 1e-9);
  EXPECT_NEAR(cost->baseline_step_s, 0.2, 1e-9);
  EXPECT_NEAR(cost->extra_ms, (step_s - 0.2) * 1000, 1e-6);
  EXPECT_NEAR(cost->steps_per_hour, 3600 / step_s, 1e-6);
  EXPECT_NEAR(cost->idle_s_per_gpu_hour, (step_s - 0.2) * 3600 / step_s, 1e-6);
  ASSERT_TRUE(cost->stall_ms);
  EXPECT_DOUBLE_EQ(*cost->stall_ms, 1200 - 200);  // longest step - clean's longest

  // The baseline has no cost of its own; a scenario faster than it idles 0 s.
  EXPECT_FALSE(wait_cost(run[0], run));
  std::vector<ScenarioSummary> faster = {summarized("clean", 10, 200), summarized("fast", 10, 180)};
  compute_slowdowns(faster);
  ASSERT_TRUE(wait_cost(faster[1], faster));
  EXPECT_LT(wait_cost(faster[1], faster)->extra_ms, 0);
  EXPECT_EQ(wait_cost(faster[1], faster)->idle_s_per_gpu_hour, 0);
}

TEST(WaitCost, NoneWithoutACompletedBaseline) {
  std::vector<ScenarioSummary> run = {summarized("clean", 10, 200), summarized("slow", 10, 250)};
  run[0].status = rundir::ScenarioStatus::kStalled;
  compute_slowdowns(run);
  EXPECT_FALSE(wait_cost(run[1], run));
}

TEST(LongestStep, IsTheLongestAfterTheFirst) {
  auto events = uniform_scenario("s", 2, 4, 100, 1000);
  for (auto& e : events) {
    if (e["event"] == "step" && e["step"] == 1) e["step_ms"] = 900.0;  // warm-up
    if (e["event"] == "step" && e["step"] == 3 && e["rank"] == 1) e["step_ms"] = 300.0;
  }
  const ScenarioResult result = summarize_scenario(events);
  ASSERT_TRUE(result.longest_step_ms);
  EXPECT_DOUBLE_EQ(*result.longest_step_ms, 300);
  EXPECT_FALSE(summarize_scenario(uniform_scenario("s", 2, 1, 100, 1000)).longest_step_ms);
}

TEST(CostTable, ShowsTheClusterPricesAndEveryPricedScenario) {
  std::vector<ScenarioSummary> run = {summarized("clean", 10, 200), summarized("slow", 10, 400)};
  compute_slowdowns(run);
  const std::string table = find_table("cost")->write(run);
  for (const char* text : {"$7,680", "$128", "$2.13", "$30,720", "$512", "$122,880", "$2,048",
                           "$34.13", "1,024 GPUs"}) {
    EXPECT_NE(table.find(text), std::string::npos) << text << " in\n" << table;
  }
  // Half of every step idle: 1,800 s of each GPU-hour, $15,360 an hour on 1,024 GPUs.
  EXPECT_NE(table.find("1,800 ( 50%)"), std::string::npos) << table;
  EXPECT_NE(table.find("$15,360"), std::string::npos) << table;
  EXPECT_EQ(table.find("\nclean "), std::string::npos) << "the baseline is not priced\n" << table;

  CostSettings only_512;
  only_512.gpus = {512};
  only_512.usd_per_gpu_hour = 2;
  const std::string small = format_cost_table(run, only_512);
  EXPECT_NE(small.find("$1,024"), std::string::npos) << small;  // 512 x $2 / 2
  EXPECT_EQ(small.find("4,096"), std::string::npos) << small;

  std::vector<ScenarioSummary> clean_only = {summarized("clean", 10, 200)};
  compute_slowdowns(clean_only);
  EXPECT_EQ(format_cost_table(clean_only), "");
}

TEST(MoneyFormat, GroupsThousandsAndKeepsCentsBelowAHundred) {
  EXPECT_EQ(format_usd(122880), "$122,880");
  EXPECT_EQ(format_usd(85.333), "$85.33");
  EXPECT_EQ(format_usd(955.73), "$956");
  EXPECT_EQ(format_count(8000), "8,000");
  EXPECT_EQ(format_count(224), "224");
}

}  // namespace
}  // namespace fabriclab::runner::report
