// first_crossing: where a swept curve first reaches a level, interpolated on
// the points themselves, never extrapolated.
#include "common/sweep_crossing.h"

#include <gtest/gtest.h>

namespace fabriclab {
namespace {

TEST(SweepCrossing, InterpolatesBetweenThePointsAroundTheLevel) {
  // 1.6x at 2% and 3.6x at 5%: 2x is a fifth of the way, at 2.6%.
  const auto x = first_crossing({{0, 1.0}, {0.5, 1.1}, {2, 1.6}, {5, 3.6}}, 2.0);
  ASSERT_TRUE(x);
  EXPECT_NEAR(*x, 2.6, 1e-9);
}

TEST(SweepCrossing, TheFirstCrossingCountsEvenIfTheCurveFallsAgain) {
  const auto x = first_crossing({{0, 1.0}, {1, 3.0}, {2, 1.5}, {3, 4.0}}, 2.0);
  ASSERT_TRUE(x);
  EXPECT_NEAR(*x, 0.5, 1e-9);
}

TEST(SweepCrossing, APointExactlyAtTheLevelIsItsValue) {
  EXPECT_NEAR(*first_crossing({{0, 1.0}, {1, 2.0}}, 2.0), 1.0, 1e-9);
  EXPECT_NEAR(*first_crossing({{0.1, 2.5}, {1, 3.0}}, 2.0), 0.1,
              1e-9);  // already at the first point
}

TEST(SweepCrossing, NeverReachedIsNoValue) {
  EXPECT_FALSE(first_crossing({{0, 1.0}, {2, 1.5}, {5, 1.99}}, 2.0));
  EXPECT_FALSE(first_crossing({}, 2.0));
}

}  // namespace
}  // namespace fabriclab
