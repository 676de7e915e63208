// The switch model (netem/queue/switch_model.h): a port drains at its rate;
// tail drop, RED/DCQCN and DCTCP marking on the depth found; PFC-like pause
// with head-of-line blocking. Times in ns; 8 Mbit/s drains a byte per us.
#include "netem/queue/switch_model.h"

#include <gtest/gtest.h>

#include <map>

namespace fabriclab::netem {
namespace {

constexpr int64_t kMs = 1'000'000;

std::map<uint64_t, SwitchVerdict::Kind> by_token(const std::vector<SwitchVerdict>& verdicts) {
  std::map<uint64_t, SwitchVerdict::Kind> out;
  for (const SwitchVerdict& v : verdicts) out[v.token] = v.kind;
  return out;
}

TEST(SwitchModel, TailDropDrainsAtTheRateAndDropsWhatOverflows) {
  SwitchModel sw({parse_port_spec("rate 8mbit limit 3000 taildrop")}, 1, 1);
  for (uint64_t t = 1; t <= 5; ++t) sw.arrive(0, {t, 0, 0, 1000, true});
  auto now = sw.take(0);
  ASSERT_EQ(now.size(), 2u);  // 4 and 5 found 3000 bytes queued: dropped at once
  EXPECT_EQ(now[0].token, 4u);
  EXPECT_EQ(now[0].kind, SwitchVerdict::kDrop);
  EXPECT_EQ(sw.next_departure_ns(), 1 * kMs);  // 1000 bytes at a byte per us
  EXPECT_TRUE(sw.take(1 * kMs - 1).empty());
  EXPECT_EQ(by_token(sw.take(1 * kMs)), (std::map<uint64_t, SwitchVerdict::Kind>{{1, SwitchVerdict::kAccept}}));
  EXPECT_EQ(sw.take(3 * kMs).size(), 2u);
  const PortCounters c = sw.port_counters(0, 3 * kMs);
  EXPECT_EQ(c.packets, 3u);
  EXPECT_EQ(c.dropped, 2u);
  EXPECT_EQ(c.depth_max_bytes, 3000u);
  EXPECT_EQ(c.depth_bytes, 0u);
}

TEST(SwitchModel, RedMarksNothingBelowKminSomeBetweenAllAboveKmax) {
  // 100-byte packets into a port too slow to drain meanwhile: packet n finds n x 100 bytes.
  SwitchModel sw({parse_port_spec("rate 8kbit limit 100kb ecn kmin 10kb kmax 20kb pmax 0.5")}, 1, 7);
  for (uint64_t n = 0; n < 300; ++n) sw.arrive(0, {n, 0, 0, 100, true});
  sw.take(0);
  // Left after all of them: ~1 s each at 1000 bytes/s.
  const auto verdicts = by_token(sw.take(100'000 * kMs));
  int below = 0, between = 0, above = 0;
  for (const auto& [token, kind] : verdicts) {
    const uint64_t found = token * 100;
    if (kind != SwitchVerdict::kAcceptCe) continue;
    (found < 10 * 1024 ? below : found < 20 * 1024 ? between : above)++;
  }
  EXPECT_EQ(below, 0);
  // 102 packets between kmin and kmax, marked with probability 0 .. 0.5: ~25 expected.
  EXPECT_GT(between, 10);
  EXPECT_LT(between, 45);
  EXPECT_EQ(above, 300 - 205);  // found 20,500 bytes and more: every one
  EXPECT_EQ(sw.port_counters(0, 0).marked, static_cast<uint64_t>(between + above));
  EXPECT_EQ(sw.port_counters(0, 0).dropped, 0u);
  // The same decisions by depth found: none below 10 KiB, all from 20 KiB.
  uint64_t ect = 0, marked = 0;
  for (const MarkingBucket& b : sw.marking_trace(0)) {
    ect += b.ect;
    marked += b.marked;
    if (b.depth_from_bytes + 1024 <= 10 * 1024) {
      EXPECT_EQ(b.marked, 0u) << b.depth_from_bytes;
    }
    if (b.depth_from_bytes >= 20 * 1024) {
      EXPECT_EQ(b.marked, b.ect) << b.depth_from_bytes;
    }
  }
  EXPECT_EQ(ect, 300u);
  EXPECT_EQ(marked, static_cast<uint64_t>(between + above));
}

TEST(SwitchModel, WhatCannotBeMarkedIsDroppedAndDctcpHasOneThreshold) {
  SwitchModel sw({parse_port_spec("rate 8kbit limit 100kb ecn k 2kb")}, 1, 1);
  for (uint64_t n = 0; n < 40; ++n) sw.arrive(0, {n, 0, 0, 100, /*ect=*/n % 2 == 0});
  const auto verdicts = by_token(sw.take(100'000 * kMs));
  for (const auto& [token, kind] : verdicts) {
    if (token * 100 < 2048) {
      EXPECT_EQ(kind, SwitchVerdict::kAccept) << token;
    } else {
      EXPECT_EQ(kind, token % 2 == 0 ? SwitchVerdict::kAcceptCe : SwitchVerdict::kDrop) << token;
    }
  }
  const PortCounters c = sw.port_counters(0, 0);
  EXPECT_GT(c.dropped, 0u);
  EXPECT_EQ(c.unmarkable, c.dropped);  // none overflowed the 100 kB buffer
}

TEST(SwitchModel, LosslessPausesTheUpstreamAndItsOtherTrafficWaitsToo) {
  // Port 0 is slow and congested by ingress 0; port 1 is idle and fast.
  SwitchModel sw({parse_port_spec("rate 8mbit limit 10kb lossless xoff 3000 xon 1000"),
                  parse_port_spec("rate 8gbit limit 10kb taildrop")},
                 2, 1);
  for (uint64_t t = 1; t <= 4; ++t) sw.arrive(0, {t, 0, 0, 1000, true});  // 4000 > xoff
  EXPECT_EQ(sw.ingress_counters(0, 0).pauses, 1u);
  sw.arrive(10, {100, /*ingress=*/0, /*port=*/1, 1000, true});   // the victim: same ingress
  sw.arrive(10, {200, /*ingress=*/1, /*port=*/1, 1000, true});   // another ingress: not paused
  auto early = by_token(sw.take(1 * kMs));
  EXPECT_EQ(early.count(200), 1u);  // left port 1 after 1 us
  EXPECT_EQ(early.count(100), 0u);  // held at its ingress
  EXPECT_EQ(sw.ingress_counters(0, 1 * kMs).holding, 1u);
  // Port 0 falls below xon only when its 4th packet has left, at 4 ms.
  EXPECT_EQ(by_token(sw.take(4 * kMs - 1)).count(100), 0u);
  auto later = by_token(sw.take(4 * kMs + 2000));
  EXPECT_EQ(later.count(4), 1u);
  EXPECT_EQ(later.count(100), 1u);
  EXPECT_EQ(sw.port_counters(0, 5 * kMs).pauses, 1u);
  EXPECT_EQ(sw.port_counters(0, 5 * kMs).paused_ns, 4 * kMs);
  EXPECT_EQ(sw.ingress_counters(0, 5 * kMs).paused_ns, 4 * kMs - 0);
  EXPECT_EQ(sw.ingress_counters(1, 5 * kMs).pauses, 0u);
  EXPECT_EQ(sw.port_counters(0, 5 * kMs).dropped + sw.port_counters(1, 5 * kMs).dropped, 0u);
}

// Lab 12: a lossless port that marks. A packet that can carry the mark
// gets CE; one that cannot (its sender's ECN is off) is queued unmarked,
// never dropped, and its sender is paused at XOFF instead.
TEST(SwitchModel, LosslessMarksWhatItCanAndQueuesTheRest) {
  SwitchModel sw({parse_port_spec("rate 8kbit limit 100kb lossless xoff 6kb xon 3kb k 2kb")}, 2, 1);
  for (uint64_t n = 0; n < 50; ++n)
    sw.arrive(0, {n, /*ingress=*/static_cast<int>(n % 2), 0, 100, /*ect=*/n % 2 == 0});
  const auto verdicts = by_token(sw.take(0));
  EXPECT_TRUE(verdicts.empty());  // nothing dropped at once
  const auto left = by_token(sw.take(100'000 * kMs));
  ASSERT_EQ(left.size(), 50u);
  for (const auto& [token, kind] : left) {
    if (token * 100 < 2048 || token % 2 == 1) {
      EXPECT_EQ(kind, SwitchVerdict::kAccept) << token;
    } else {
      EXPECT_EQ(kind, SwitchVerdict::kAcceptCe) << token;
    }
  }
  const PortCounters c = sw.port_counters(0, 100'000 * kMs);
  EXPECT_EQ(c.dropped, 0u);
  EXPECT_EQ(c.unmarkable, 0u);
  EXPECT_GT(c.marked, 0u);
  EXPECT_EQ(c.pauses, 0u);  // 5000 bytes: below xoff
}

TEST(SwitchModel, LosslessNeverDropsAndHeldPacketsKeepTheirOrder) {
  SwitchModel sw({parse_port_spec("rate 8mbit limit 4kb lossless xoff 2000 xon 1000")}, 1, 1);
  for (uint64_t t = 0; t < 50; ++t) sw.arrive(static_cast<int64_t>(t) * 1000, {t, 0, 0, 1000, true});
  std::vector<uint64_t> order;
  for (const SwitchVerdict& v : sw.take(1000 * kMs)) {
    EXPECT_EQ(v.kind, SwitchVerdict::kAccept);
    order.push_back(v.token);
  }
  ASSERT_EQ(order.size(), 50u);
  for (uint64_t t = 0; t < 50; ++t) EXPECT_EQ(order[t], t);
  const PortCounters c = sw.port_counters(0, 1000 * kMs);
  EXPECT_EQ(c.dropped, 0u);
  EXPECT_GT(c.pauses, 1u);  // paused, resumed, paused again as the held ones entered
  EXPECT_LE(c.depth_max_bytes, 3000u);
}

TEST(SwitchModel, ALinkThatJoinsAPausedPortIsPausedToo) {
  // Ingress 0 fills the port past xoff; ingress 1 only starts sending then.
  // Its packets must not pour in above xoff: it is paused on its first one.
  // (Seen in lab 08 before: a link resumed by one XON while the port had
  // paused again sent everything it held, and the queue grew to 2.7 MB.)
  SwitchModel sw({parse_port_spec("rate 8mbit limit 4kb lossless xoff 3000 xon 1000")}, 2, 1);
  uint64_t token = 0;
  for (int n = 0; n < 20; ++n) sw.arrive(0, {token++, 0, 0, 1000, true});
  for (int n = 0; n < 20; ++n) sw.arrive(10, {token++, 1, 0, 1000, true});
  EXPECT_EQ(sw.ingress_counters(1, 10).pauses, 1u);
  EXPECT_EQ(sw.ingress_counters(1, 10).holding, 19u);
  size_t left = 0;
  for (int64_t t = 0; t <= 100 * kMs; t += kMs / 10) {
    left += sw.take(t).size();
    EXPECT_LE(sw.port_counters(0, t).depth_bytes, 5000u) << t;
  }
  EXPECT_EQ(left, 40u);
  EXPECT_EQ(sw.port_counters(0, 100 * kMs).dropped, 0u);
  EXPECT_LE(sw.port_counters(0, 100 * kMs).depth_max_bytes, 5000u);
}

TEST(SwitchModel, LinksResumedTogetherTakeTurns) {
  // Two links with long backlogs into one lossless port: after each XON
  // both send, so over time each gets about half the port, whichever has
  // the lower number (before: the first resumed sent until the port paused
  // again, and the other waited for ever).
  SwitchModel sw({parse_port_spec("rate 8mbit limit 16kb lossless xoff 6000 xon 2000")}, 2, 1);
  uint64_t token = 0;
  std::map<uint64_t, int> ingress_of;
  for (int n = 0; n < 200; ++n) {
    for (int ingress = 0; ingress < 2; ++ingress) {
      ingress_of[token] = ingress;
      sw.arrive(0, {token++, ingress, 0, 1000, true});
    }
  }
  int left[2] = {0, 0};
  for (const SwitchVerdict& v : sw.take(100 * kMs)) ++left[ingress_of[v.token]];  // 100 of 400
  EXPECT_NEAR(left[0], 50, 5);
  EXPECT_NEAR(left[1], 50, 5);
}

TEST(SwitchModel, DepthPercentilesAndWindowMax) {
  SwitchModel sw({parse_port_spec("rate 8mbit limit 64kb taildrop")}, 1, 1);
  for (uint64_t t = 0; t < 10; ++t) sw.arrive(0, {t, 0, 0, 1000, true});  // found 0 .. 9000
  const PortCounters c = sw.port_counters(0, 0);
  EXPECT_EQ(c.depth_max_bytes, 10000u);
  EXPECT_EQ(c.depth_p50_bytes, 4096u);  // the 5th of 10 found 4000: its KiB bucket's top
  EXPECT_EQ(c.depth_p99_bytes, 9216u);  // the 10th found 9000
  EXPECT_EQ(sw.take_window_max(0), 10000u);
  sw.take(20 * kMs);
  EXPECT_EQ(sw.take_window_max(0), 10000u);  // this window began at 10000 bytes
  EXPECT_EQ(sw.take_window_max(0), 0u);      // drained since
}

}  // namespace
}  // namespace fabriclab::netem
