// The player's pace as a schedule: when each event is due for a speed and an
// idle limit, computed without playing (so no test times a replay on a
// shared CPU), and play_cast() writing what is due, in order, until stopped.
#include "runner/cast/player.h"

#include <gtest/gtest.h>

#include <sstream>

#include "common/input_error.h"

namespace fabriclab::runner {
namespace {

Cast cast_of(const std::vector<std::pair<double, std::string>>& events) {
  Cast cast;
  for (const auto& [time_s, code] : events) cast.events.push_back({time_s, code, code, 0});
  return cast;
}

PlayOptions options(double speed, double idle_limit_s) {
  PlayOptions o;
  o.speed = speed;
  o.idle_limit_s = idle_limit_s;
  return o;
}

TEST(PlaySchedule, GapsAreKeptAtSpeedOne) {
  const Cast cast = cast_of({{0.75, "o"}, {1.5, "o"}, {2.25, "m"}, {3.0, "o"}});
  const std::vector<double> due = play_schedule(cast, options(1, 2));
  ASSERT_EQ(due.size(), 4u);
  EXPECT_DOUBLE_EQ(due[0], 0.75);
  EXPECT_DOUBLE_EQ(due[1], 1.5);
  EXPECT_DOUBLE_EQ(due[2], 2.25);
  EXPECT_DOUBLE_EQ(due[3], 3.0);
}

TEST(PlaySchedule, SpeedDividesEveryGap) {
  const Cast cast = cast_of({{0.75, "o"}, {1.5, "o"}, {6.0, "o"}});
  const std::vector<double> due = play_schedule(cast, options(4, 10));
  EXPECT_DOUBLE_EQ(due[0], 0.1875);
  EXPECT_DOUBLE_EQ(due[1], 0.375);
  EXPECT_DOUBLE_EQ(due[2], 1.5);
}

TEST(PlaySchedule, IdleLimitCapsLongPausesInRecordedSeconds) {
  // 20 s of silence capped at 0.3 s; then the cap is applied before speed.
  const Cast cast = cast_of({{0.0, "o"}, {20.0, "o"}, {20.1, "o"}});
  std::vector<double> due = play_schedule(cast, options(1, 0.3));
  EXPECT_DOUBLE_EQ(due[1], 0.3);
  EXPECT_NEAR(due[2], 0.4, 1e-12);
  due = play_schedule(cast, options(2, 0.3));
  EXPECT_DOUBLE_EQ(due[1], 0.15);
}

TEST(PlaySchedule, ThirtySecondsCappedAndFastAreFractionsOfASecond) {
  // The replay CLI test's session: 30 s with two long pauses.
  const Cast cast =
      cast_of({{0.0, "m"}, {0.1, "o"}, {10.0, "o"}, {10.0, "m"}, {10.1, "m"}, {29.9, "o"},
               {30.0, "m"}});
  const std::vector<double> due = play_schedule(cast, options(1000, 2));
  EXPECT_NEAR(due.back(), (0.1 + 2 + 0 + 0.1 + 2 + 0.1) / 1000, 1e-12);
}

TEST(PlaySchedule, SkippedEventsNeitherWaitNorMoveTheGap) {
  // The gap to the "o" at 3.0 is measured from the "o" at 1.0, not from the
  // resize at 2.5; the resize is due with the event before it.
  const Cast cast = cast_of({{1.0, "o"}, {2.5, "r"}, {3.0, "o"}, {3.5, "i"}});
  const std::vector<double> due = play_schedule(cast, options(1, 1.5));
  EXPECT_DOUBLE_EQ(due[1], 1.0);
  EXPECT_DOUBLE_EQ(due[2], 2.5);
  EXPECT_DOUBLE_EQ(due[3], 2.5);
}

TEST(PlaySchedule, RefusesOptionsOutOfRange) {
  const Cast cast = cast_of({{1.0, "o"}});
  EXPECT_THROW(play_schedule(cast, options(0, 1)), InputError);
  EXPECT_THROW(play_schedule(cast, options(-2, 1)), InputError);
  EXPECT_THROW(play_schedule(cast, options(1, 0)), InputError);
}

TEST(PlayCast, AStopBeforeTheFirstEventPlaysNothing) {
  const Cast cast = cast_of({{0.0, "o"}, {1.0, "o"}});
  std::ostringstream out;
  const std::atomic<bool> stop{true};
  const PlayResult r = play_cast(cast, out, options(1, 2), stop);
  EXPECT_TRUE(r.stopped);
  EXPECT_EQ(out.str(), "");
  EXPECT_EQ(r.played_s, 0);
}

TEST(PlayCast, PlaysEveryDueEventInOrder) {
  Cast cast = cast_of({{0.0, "o"}, {0.001, "m"}, {0.002, "r"}, {0.003, "o"}});
  cast.events[0].data = "a";
  cast.events[1].data = "chapter";
  cast.events[3].data = "b\r\n";
  std::ostringstream out;
  const std::atomic<bool> stop{false};
  const PlayResult r = play_cast(cast, out, options(1, 2), stop);
  EXPECT_FALSE(r.stopped);
  EXPECT_EQ(out.str(), "a\r\n" + chapter_line("chapter") + "b\r\n");
  EXPECT_EQ(r.markers, 1u);
  EXPECT_DOUBLE_EQ(r.played_s, 0.003);
}

}  // namespace
}  // namespace fabriclab::runner
