// netem's rate as the userspace backend computes it (netem/rate_serializer.h),
// against sch_netem's arithmetic worked by hand.
#include <gtest/gtest.h>

#include "netem/rate_serializer.h"
#include "netem/spec_parse.h"

namespace fabriclab::netem {
namespace {

TEST(RateSerializer, WireTimeIsLengthOverRate) {
  RateSerializer s(parse_spec("rate 1gbit"));  // 125,000,000 bytes/s: 8 ns a byte
  EXPECT_TRUE(s.active());
  EXPECT_EQ(s.transmit_ns(1514), 12112);
  EXPECT_EQ(s.transmit_ns(64), 512);
  EXPECT_FALSE(RateSerializer(parse_spec("delay 1ms")).active());
  EXPECT_EQ(RateSerializer(parse_spec("delay 1ms")).transmit_ns(1514), 0);
}

TEST(RateSerializer, OverheadAndCellsAsNetem) {
  // rate 1mbit 20 (packet overhead): (100 + 20) bytes at 125,000 B/s.
  EXPECT_EQ(RateSerializer(parse_spec("rate 1mbit 20")).transmit_ns(100), 960000);
  // cells of 48 bytes + 5 overhead (ATM-like): 100 B -> 3 cells x 53 = 159 B.
  EXPECT_EQ(RateSerializer(parse_spec("rate 1mbit 0 48 5")).transmit_ns(100), 1272000);
}

TEST(RateSerializer, BackToBackPacketsQueueBehindEachOther) {
  RateSerializer s(parse_spec("rate 1gbit"));
  // Three 1514-byte frames arriving together leave 12.112 us apart.
  EXPECT_EQ(s.departure_ns(1000, 0, 1514, true), 1000 + 12112);
  EXPECT_EQ(s.departure_ns(1000, 0, 1514, false), 1000 + 2 * 12112);
  EXPECT_EQ(s.departure_ns(1000, 0, 1514, false), 1000 + 3 * 12112);
  // An empty queue starts from the packet's own arrival again.
  EXPECT_EQ(s.departure_ns(900000, 0, 1514, true), 900000 + 12112);
}

TEST(RateSerializer, DelaySpentQueuedIsNotAddedTwice) {
  RateSerializer s(parse_spec("delay 10us rate 1gbit"));
  EXPECT_EQ(s.departure_ns(0, 10000, 1514, true), 10000 + 12112);
  // Arrives 1 us later; its own delay ends at 11 us, before the first one
  // has left (22.112 us): it leaves one wire time after that.
  EXPECT_EQ(s.departure_ns(1000, 10000, 1514, false), 22112 + 12112);
  // Arrives much later, queue still non-empty but its delay ends later.
  EXPECT_EQ(s.departure_ns(100000, 10000, 1514, false), 110000 + 12112);
}

}  // namespace
}  // namespace fabriclab::netem
