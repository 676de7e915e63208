// The emulated compute's sizing on chosen times: what `--compute-slowdown`
// and `--step-compute-ms` sleep, without timing a step (doc/ci.md).
#include "trainer/emulated_compute.h"

#include <gtest/gtest.h>

namespace fabriclab::trainer {
namespace {

TEST(EmulatedCompute, ASlowWorkerSleepsFMinusOneTimesItsCompute) {
  // 10 ms forward + 20 ms backward (the step before's) at 4x: 90 ms more,
  // 3/4 of the slowed compute.
  EXPECT_DOUBLE_EQ(emulated_sleep_ms(10, 20, 0, 4), 90);
  EXPECT_DOUBLE_EQ(emulated_sleep_ms(10, 20, 0, 1), 0);  // not slowed
}

TEST(EmulatedCompute, TheFirstStepGuessesTheBackwardAtTwiceTheForward) {
  EXPECT_DOUBLE_EQ(emulated_sleep_ms(10, -1, 0, 4), 3 * 30);
  EXPECT_DOUBLE_EQ(emulated_sleep_ms(10, -1, 150, 1), 120);
}

TEST(EmulatedCompute, AStepComputeTimeIsAFloor) {
  EXPECT_DOUBLE_EQ(emulated_sleep_ms(10, 20, 150, 1), 120);  // up to 150 ms
  EXPECT_DOUBLE_EQ(emulated_sleep_ms(100, 80, 150, 1), 0);   // already longer
  EXPECT_DOUBLE_EQ(emulated_sleep_ms(10, 20, 150, 2), 270);  // then the factor
}

}  // namespace
}  // namespace fabriclab::trainer
