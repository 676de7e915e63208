// Lab 07's figures: the flow probe's result fields against the sweep's
// baseline (compute_slowdowns), and the sweep chart's rows.
#include <gtest/gtest.h>

#include "runner/report/scenario_summary.h"
#include "runner/report/sweep_chart.h"
#include "runner/report/sweep_table.h"

namespace fabriclab::runner::report {
namespace {

ScenarioSummary point(const std::string& name, double value, double wall_s, double flow_gbps,
                      double retx_share) {
  ScenarioSummary s;
  s.name = name;
  s.status = rundir::ScenarioStatus::kCompleted;
  s.baseline = "loss-0";
  s.sweep = "loss";
  s.sweep_value = value;
  s.result.wall_s = wall_s;
  s.result.median_step_ms = wall_s * 100;
  s.result.mean_step_ms = wall_s * 110;
  s.result.flow_gbps = flow_gbps;
  s.result.flow_retx_share = retx_share;
  return s;
}

TEST(SweepReport, FlowSlowdownAndAmplificationAgainstTheSweepBaseline) {
  std::vector<ScenarioSummary> s = {point("loss-0", 0, 2.0, 2.0, 0.0),
                                    point("loss-0p5", 0.5, 2.2, 1.6, 0.005)};
  compute_slowdowns(s);
  EXPECT_DOUBLE_EQ(*s[1].result.slowdown, 1.1);
  EXPECT_DOUBLE_EQ(*s[1].result.step_slowdown, 1.1);
  EXPECT_DOUBLE_EQ(*s[1].result.flow_slowdown, 1.25);
  EXPECT_NEAR(*s[1].result.amplification, 0.1 / 0.005, 1e-9);  // (1.1 - 1) / 0.5%
  EXPECT_FALSE(s[0].result.amplification);                     // the baseline against itself: none
  // Round trip through run.json.
  ScenarioResult back = nlohmann::json(s[1].result).get<ScenarioResult>();
  EXPECT_DOUBLE_EQ(*back.amplification, *s[1].result.amplification);
  EXPECT_DOUBLE_EQ(*back.flow_gbps, 1.6);
}

TEST(SweepReport, ChartRowsAreCostsInPercentAndSkipOtherScenarios) {
  ScenarioSeries clean;
  clean.name = "clean";
  ScenarioSeries half;
  half.sweep = "loss";
  half.sweep_value = 0.5;
  half.result.step_slowdown = 1.5;
  half.result.flow_slowdown = 1.25;
  half.result.flow_retx_share = 0.005;
  ScenarioSeries stalled;
  stalled.sweep = "loss";
  stalled.sweep_value = 5;
  ScenarioSeries other;
  other.sweep = "nosack";
  other.sweep_value = 1;
  other.result.step_slowdown = 4;
  EXPECT_EQ(sweep_chart_rows({clean, half, other, stalled}, "loss"),
            "0.5 50.00 20.00 0.50\n5 NaN NaN NaN\n");
  EXPECT_EQ(sweep_chart_rows({clean, half, other, stalled}, "nosack"), "1 300.00 NaN NaN\n");
  EXPECT_EQ(sweep_chart_rows({clean}, "loss"), "");
  EXPECT_EQ(sweep_names({clean, half, other, stalled}), (std::vector<std::string>{"loss", "nosack"}));
  // One data block and one colour per sweep.
  const std::string script = sweep_chart_script({half, other}, "t", "sweep.svg");
  EXPECT_NE(script.find("$sweep0 << EOD\n# loss:"), std::string::npos);
  EXPECT_NE(script.find("$sweep1 << EOD\n# nosack:"), std::string::npos);
  EXPECT_NE(script.find("'nosack: job, extra step time %'"), std::string::npos);
  EXPECT_NE(sweep_chart_script({clean}, "t", "sweep.svg").find("$sweep0 << EOD"),
            std::string::npos);
}

TEST(SweepReport, TableShowsThePointsOnly) {
  std::vector<ScenarioSummary> s = {point("loss-0", 0, 2.0, 2.0, 0.0),
                                    point("loss-2", 2, 3.0, 1.0, 0.02)};
  compute_slowdowns(s);
  const std::string table = format_sweep_table(s);
  EXPECT_NE(table.find("loss-2"), std::string::npos);
  EXPECT_NE(table.find("+50.0"), std::string::npos);  // job: 3.0 / 2.0
  EXPECT_EQ(format_sweep_table({}), "");
}

}  // namespace
}  // namespace fabriclab::runner::report
