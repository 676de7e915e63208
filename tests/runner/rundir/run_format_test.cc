// The status words: every ScenarioStatus has one, and nothing else is one.
#include "runner/rundir/run_format.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace fabriclab::runner::rundir {
namespace {

TEST(ScenarioStatus, EveryStatusRoundTripsThroughItsWord) {
  for (ScenarioStatus s :
       {ScenarioStatus::kCompleted, ScenarioStatus::kStalled, ScenarioStatus::kDeadline,
        ScenarioStatus::kFailed, ScenarioStatus::kInterrupted, ScenarioStatus::kSkipped}) {
    EXPECT_EQ(scenario_status_from_string(to_string(s)), s) << to_string(s);
    EXPECT_EQ(nlohmann::json(s).get<ScenarioStatus>(), s);
  }
  EXPECT_EQ(to_string(ScenarioStatus::kDeadline), "deadline");
  EXPECT_EQ(nlohmann::json(ScenarioStatus::kStalled), "stalled");
}

TEST(ScenarioStatus, OtherWordsAreRejected) {
  for (const char* word : {"", "Completed", "COMPLETED", "unknown", "complete", " completed"}) {
    EXPECT_FALSE(scenario_status_from_string(word)) << word;
  }
  EXPECT_THROW(nlohmann::json("done").get<ScenarioStatus>(), std::invalid_argument);
  EXPECT_THROW(nlohmann::json(3).get<ScenarioStatus>(), std::invalid_argument);
  EXPECT_EQ(scenario_status_words(),
            "completed, stalled, deadline, failed, interrupted or skipped");
}

}  // namespace
}  // namespace fabriclab::runner::rundir
