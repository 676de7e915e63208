// The queue worker's decisions on chosen times (packet_scheduler.h): how long
// each packet is held for a delay with jitter, that nothing is released
// before it is due, the order of release, the limit and loss. What ping saw
// of the same on a real link is the bench's (`fabriclab bench impair`): on a
// shared CPU a wall-clock bound is not a test (doc/ci.md).
#include "netem/userspace/packet_scheduler.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "netem/spec_parse.h"

namespace fabriclab::netem::userspace {
namespace {

constexpr int64_t kMs = 1000000;

TEST(PacketScheduler, JitterHoldsEachPacketWithinTheConfiguredRange) {
  // userspace_backend_test's ping: 60 packets 10 ms apart, `delay 10ms 4ms`, seed 7.
  PacketScheduler s(parse_spec("delay 10ms 4ms"), 7);
  EXPECT_FALSE(s.in_order());
  std::vector<int64_t> holds;
  for (uint32_t i = 0; i < 60; ++i) {
    const int64_t now = i * 10 * kMs;
    const PacketScheduler::Decision d = s.arrive(i, 84, now);
    ASSERT_EQ(d.verdict, PacketScheduler::Verdict::kHold);
    holds.push_back(d.release_ns - now);
  }
  std::sort(holds.begin(), holds.end());
  EXPECT_GE(holds.front(), 6 * kMs);  // uniform in [6, 14) ms
  EXPECT_LT(holds.back(), 14 * kMs);
  EXPECT_GT(holds[54] - holds[6], 3 * kMs);  // p90 - p10: the jitter is there
}

TEST(PacketScheduler, NothingIsDueBeforeItsReleaseAndDueComesInReleaseOrder) {
  PacketScheduler s(parse_spec("delay 10ms 4ms"), 7);
  std::vector<std::pair<int64_t, uint32_t>> expected;  // (release, id)
  for (uint32_t i = 0; i < 20; ++i) {
    const PacketScheduler::Decision d = s.arrive(i, 84, i * kMs);  // 1 ms apart: they overtake
    expected.push_back({d.release_ns, i});
  }
  std::sort(expected.begin(), expected.end());
  std::vector<uint32_t> released;
  for (const auto& [release, id] : expected) {
    EXPECT_TRUE(s.due(release - 1).empty()) << "packet " << id << " released early";
    for (uint32_t due : s.due(release)) released.push_back(due);
  }
  std::vector<uint32_t> order;
  for (const auto& e : expected) order.push_back(e.second);
  EXPECT_EQ(released, order);
  EXPECT_TRUE(s.empty());
}

TEST(PacketScheduler, AFixedDelayHoldsExactlyAndKeepsOrder) {
  PacketScheduler s(parse_spec("delay 20ms"), 1);
  EXPECT_TRUE(s.in_order());
  EXPECT_EQ(s.arrive(1, 84, 5 * kMs).release_ns, 25 * kMs);
  EXPECT_EQ(s.arrive(2, 84, 6 * kMs).release_ns, 26 * kMs);
  EXPECT_TRUE(s.due(25 * kMs - 1).empty());
  EXPECT_EQ(s.due(25 * kMs), std::vector<uint32_t>({1}));
  EXPECT_EQ(s.next_release_ns(), 26 * kMs);
  EXPECT_EQ(s.due(INT64_MAX), std::vector<uint32_t>({2}));
}

// A change of impairment (a link fault's): what is held keeps its release
// time, the next packet is decided by the new spec, and while packets held
// under the old one remain, a shorter new delay overtakes them -- so no
// batch verdict (in_order) until the last of them is due.
TEST(PacketScheduler, AChangeKeepsWhatIsHeldAndDecidesTheNextByTheNewSpec) {
  PacketScheduler s(parse_spec("delay 100ms"), 1);
  ASSERT_TRUE(s.in_order());
  EXPECT_EQ(s.arrive(1, 84, 0).release_ns, 100 * kMs);
  s.change(parse_spec("delay 10ms"), 2);
  EXPECT_FALSE(s.in_order());
  EXPECT_EQ(s.arrive(2, 84, 1 * kMs).release_ns, 11 * kMs);
  EXPECT_EQ(s.due(11 * kMs), std::vector<uint32_t>({2}));  // overtook packet 1
  EXPECT_FALSE(s.in_order());
  EXPECT_EQ(s.due(100 * kMs), std::vector<uint32_t>({1}));
  EXPECT_TRUE(s.in_order()) << "every packet held before the change is out";
  s.change(parse_spec("loss 100%"), 3);
  EXPECT_EQ(s.arrive(3, 84, 200 * kMs).verdict, PacketScheduler::Verdict::kDrop);
  s.change(parse_spec("delay 10ms"), 4);
  EXPECT_EQ(s.arrive(4, 84, 300 * kMs).release_ns, 310 * kMs);
}

TEST(PacketScheduler, TheLimitDropsWhatWouldOverflowIt) {
  PacketScheduler s(parse_spec("delay 100ms limit 2"), 1);
  EXPECT_EQ(s.arrive(1, 84, 0).verdict, PacketScheduler::Verdict::kHold);
  EXPECT_EQ(s.arrive(2, 84, 0).verdict, PacketScheduler::Verdict::kHold);
  EXPECT_EQ(s.arrive(3, 84, 0).verdict, PacketScheduler::Verdict::kDrop);
  EXPECT_EQ(s.held(), 2u);
}

TEST(PacketScheduler, LossDrops) {
  PacketScheduler s(parse_spec("loss 100%"), 1);
  EXPECT_EQ(s.arrive(1, 84, 0).verdict, PacketScheduler::Verdict::kDrop);
  EXPECT_TRUE(s.empty());
}

}  // namespace
}  // namespace fabriclab::netem::userspace
