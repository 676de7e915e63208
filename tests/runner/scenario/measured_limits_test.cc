// A relative limit becomes seconds from what its scenario took in this run;
// without that measurement the absolute limit stands, and the line says so.
#include "runner/scenario/measured_limits.h"

#include <gtest/gtest.h>

namespace fabriclab::runner {
namespace {

ScenarioDefinition loss_scenario() {
  ScenarioDefinition s;
  s.name = "loss";
  s.deadline_s = 150;
  s.stall_s = 20;
  s.deadline = {12, "clean"};
  return s;
}

TEST(MeasuredLimits, ARelativeDeadlineMultipliesItsScenariosTime) {
  const ResolvedLimits r = resolve_limits(loss_scenario(), {{"clean", 11.5}});
  EXPECT_DOUBLE_EQ(r.scenario.deadline_s, 138);
  EXPECT_DOUBLE_EQ(r.scenario.stall_s, 20) << "absolute where nothing relative is written";
  EXPECT_EQ(r.line, "limits: deadline 12x clean = 138.0 s, stall 20 s");
}

TEST(MeasuredLimits, WithoutItsScenarioTheSecondsApplyAndTheLineSaysWhy) {
  const ResolvedLimits r = resolve_limits(loss_scenario(), {{"latency", 30}});
  EXPECT_DOUBLE_EQ(r.scenario.deadline_s, 150);
  EXPECT_EQ(r.line,
            "limits: deadline 150 s (clean did not complete in this run, so not 12x clean), "
            "stall 20 s");
}

TEST(MeasuredLimits, AScenarioWithOnlyAbsoluteLimitsIsLeftAsItIs) {
  ScenarioDefinition s = loss_scenario();
  s.deadline = {};
  const ResolvedLimits r = resolve_limits(s, {{"clean", 11.5}});
  EXPECT_DOUBLE_EQ(r.scenario.deadline_s, 150);
  EXPECT_EQ(r.line, "");
}

}  // namespace
}  // namespace fabriclab::runner
