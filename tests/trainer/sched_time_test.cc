// The kernel's per-thread scheduler accounting (trainer/sched_time.h): a
// schedstat line read in ms, a damaged one refused, and this process's own
// threads summed -- its CPU time grows while it computes.
#include "trainer/sched_time.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace fabriclab::trainer {
namespace {

TEST(SchedTime, ParsesNanosecondsIntoMilliseconds) {
  const auto t = parse_schedstat("2500000 750000 12\n");
  ASSERT_TRUE(t);
  EXPECT_DOUBLE_EQ(t->on_cpu_ms, 2.5);
  EXPECT_DOUBLE_EQ(t->queued_ms, 0.75);
}

TEST(SchedTime, RefusesWhatIsNotThreeNumbers) {
  EXPECT_FALSE(parse_schedstat(""));
  EXPECT_FALSE(parse_schedstat("12 34"));
  EXPECT_FALSE(parse_schedstat("x 1 2"));
}

TEST(SchedTime, SumsThreadsAndSaysWhenThereAreNone) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "sched_time_test";
  std::filesystem::remove_all(dir);
  EXPECT_FALSE(process_sched_time(dir.string())) << "no folder";
  for (const char* tid : {"101", "102"}) {
    std::filesystem::create_directories(dir / tid);
    std::ofstream(dir / tid / "schedstat") << "1000000 2000000 3\n";
  }
  const auto sum = process_sched_time(dir.string());
  ASSERT_TRUE(sum);
  EXPECT_DOUBLE_EQ(sum->on_cpu_ms, 2);
  EXPECT_DOUBLE_EQ(sum->queued_ms, 4);
  std::filesystem::remove_all(dir);
}

// SchedClock keeps the files open between readings: a file rewritten is read
// afresh, a thread that appears is counted, one that ends is dropped.
TEST(SchedTime, KeptOpenClockFollowsTheThreadsAndTheirFiles) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "sched_clock_test";
  std::filesystem::remove_all(dir);
  const auto write = [&](const char* tid, const char* line) {
    std::filesystem::create_directories(dir / tid);
    std::ofstream(dir / tid / "schedstat") << line;
  };
  write("101", "1000000 2000000 3\n");
  SchedClock clock(dir.string());
  ASSERT_TRUE(clock.now());
  EXPECT_DOUBLE_EQ(clock.now()->on_cpu_ms, 1);

  write("101", "5000000 2000000 4\n");  // the same file, new numbers
  write("102", "1000000 1000000 1\n");  // a thread started
  auto t = clock.now();
  ASSERT_TRUE(t);
  EXPECT_DOUBLE_EQ(t->on_cpu_ms, 6);
  EXPECT_DOUBLE_EQ(t->queued_ms, 3);

  std::filesystem::remove_all(dir / "101");  // a thread ended
  t = clock.now();
  ASSERT_TRUE(t);
  EXPECT_DOUBLE_EQ(t->on_cpu_ms, 1);

  std::filesystem::remove_all(dir);
  EXPECT_FALSE(clock.now()) << "no threads left";
}

TEST(SchedTime, ThisProcessRunsWhileItComputes) {
  const auto before = process_sched_time();
  if (!before) GTEST_SKIP() << "this kernel keeps no schedstat";
  volatile double x = 0;
  for (int i = 0; i < 20000000; ++i) x = x + 1e-9 * i;
  const auto after = process_sched_time();
  ASSERT_TRUE(after);
  EXPECT_GT(after->on_cpu_ms, before->on_cpu_ms);
}

TEST(SchedTime, KeptOpenClockSeesThisProcessRun) {
  SchedClock clock;
  const auto before = clock.now();
  if (!before) GTEST_SKIP() << "this kernel keeps no schedstat";
  volatile double x = 0;
  for (int i = 0; i < 20000000; ++i) x = x + 1e-9 * i;
  const auto after = clock.now();
  ASSERT_TRUE(after);
  EXPECT_GT(after->on_cpu_ms, before->on_cpu_ms);
}

}  // namespace
}  // namespace fabriclab::trainer
