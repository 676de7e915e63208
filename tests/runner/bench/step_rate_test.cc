#include "runner/bench/step_rate.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <stdexcept>

namespace fabriclab::runner {
namespace {

nlohmann::json step(int rank, int64_t n, double ts) {
  return {{"v", 1}, {"event", "step"}, {"rank", rank}, {"step", n}, {"ts", ts}, {"step_ms", 1.0}};
}

TEST(StepRate, MeasuresFromEndOfWarmupToLastStepAtTheSlowestRank) {
  std::vector<nlohmann::json> events = {
      {{"v", 1}, {"event", "start"}, {"rank", 0}, {"ts", 0.0}},
      step(0, 1, 100.0),
      step(0, 2, 100.5),
      step(0, 3, 101.0),
      step(0, 4, 101.5),
      step(1, 1, 100.1),
      step(1, 2, 100.6),
      step(1, 3, 101.1),
      step(1, 4, 102.6),
      {{"v", 1}, {"event", "final"}, {"rank", 0}, {"ts", 500.0}},
  };
  // warmup 2: rank 1 ends warmup last at 100.6 and ends last at 102.6.
  const StepRate rate = step_rate(events, 2, 2);
  EXPECT_EQ(rate.steps, 2);
  EXPECT_NEAR(rate.wall_s, 2.0, 1e-9);
  EXPECT_NEAR(rate.steps_per_s, 1.0, 1e-9);
}

TEST(StepRate, RejectsMissingRanksShortRunsAndDisagreement) {
  const std::vector<nlohmann::json> one_rank = {step(0, 1, 1.0), step(0, 2, 2.0), step(0, 3, 3.0)};
  EXPECT_NO_THROW(step_rate(one_rank, 1, 1));
  EXPECT_THROW(step_rate(one_rank, 2, 1), std::runtime_error);  // rank 1 wrote nothing
  EXPECT_THROW(step_rate(one_rank, 1, 3), std::runtime_error);  // nothing after warmup
  EXPECT_THROW(step_rate(one_rank, 1, 0), std::runtime_error);  // warmup must be >= 1
  std::vector<nlohmann::json> uneven = one_rank;
  uneven.push_back(step(1, 1, 1.0));
  uneven.push_back(step(1, 2, 2.0));
  EXPECT_THROW(step_rate(uneven, 2, 1), std::runtime_error);  // rank 1 stopped early
  const std::vector<nlohmann::json> frozen = {step(0, 1, 5.0), step(0, 2, 5.0)};
  EXPECT_THROW(step_rate(frozen, 1, 1), std::runtime_error);  // zero span
}

TEST(StepRate, MedianOfOddAndEvenCounts) {
  EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(median({}), 0);
}

TEST(StepRate, ReadsJsonLinesAndNamesTheBadLine) {
  const std::string path = "/tmp/fabriclab-step-rate-" + std::to_string(::getpid()) + ".jsonl";
  {
    std::ofstream out(path);
    out << R"({"event":"step","rank":0,"step":1,"ts":1.5})"
        << "\n\n"
        << "not json\n";
  }
  try {
    read_json_lines(path);
    ADD_FAILURE() << "a non-JSON line was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(path + ":3"), std::string::npos) << e.what();
  }
  std::remove(path.c_str());
  EXPECT_THROW(read_json_lines(path), std::runtime_error);
}

}  // namespace
}  // namespace fabriclab::runner
