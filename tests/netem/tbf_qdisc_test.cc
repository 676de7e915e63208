// `rate` without sch_netem (netem/netlink/tbf_qdisc.h): our tbf messages
// against tc's bytes (fixtures/tbf/, captured by capture_fixtures.sh, and
// live in live_tc_capture_test.cc), and the burst and limit
// derived from netem's words.
#include <gtest/gtest.h>

#include "common/build_paths.h"
#include "common/input_error.h"
#include "netem/netlink/tbf_qdisc.h"
#include "netem/spec_parse.h"
#include "tests/netem/tc_fixture.h"

namespace fabriclab::netem {
namespace {

const std::string kFixtureDir =
    std::string(fabriclab::build_paths::source_dir()) + "/tests/netem/fixtures/tbf";

// tc's tbf words as the fixtures write them: rate Nbit burst B limit L.
netlink::TbfSettings settings_of(const std::vector<std::string>& words) {
  netlink::TbfSettings t;
  for (size_t i = 0; i + 1 < words.size(); i += 2) {
    if (words[i] == "rate")
      t.rate_bytes_per_s = std::stoull(words[i + 1]) / 8;  // "Nbit"
    else if (words[i] == "burst")
      t.burst_bytes = static_cast<uint32_t>(std::stoul(words[i + 1]));
    else if (words[i] == "limit")
      t.limit_bytes = static_cast<uint32_t>(std::stoul(words[i + 1]));
    else
      ADD_FAILURE() << "unexpected tbf word " << words[i];
  }
  return t;
}

TEST(TbfQdisc, BytesMatchTcForEveryFixture) {
  int compared = 0;
  for (const testing::TcFixture& f : testing::load_fixtures(kFixtureDir)) {
    SCOPED_TRACE(f.file + ": " + f.command);
    ASSERT_TRUE(f.sent) << "tc rejected a tbf fixture: " << f.tc_error;
    const testing::TcQdiscCommand c = testing::parse_tc_command(f.command);
    ASSERT_EQ(c.kind, "tbf");
    const netlink::Message ours =
        netlink::build_tbf_qdisc(c.command, c.place, settings_of(c.netem_words), 3);
    EXPECT_EQ(testing::compare_messages(ours, f.bytes), "")
        << "\n ours: " << testing::to_hex(ours) << "\n tc:   " << testing::to_hex(f.bytes);
    ++compared;
  }
  EXPECT_GE(compared, 6) << "fixtures missing from " << kFixtureDir;
}

TEST(TbfQdisc, BurstAndLimitDerivedFromNetemWords) {
  EXPECT_EQ(netlink::tbf_words(netlink::tbf_for_rate(parse_spec("rate 1gbit"))),
            "rate 1000000000bit burst 125000 limit 1514000");  // 1 ms; 1000 x 1514 B
  EXPECT_EQ(netlink::tbf_words(netlink::tbf_for_rate(parse_spec("rate 10mbit limit 500"))),
            "rate 10000000bit burst 15140 limit 757000");  // 10 frames; 500 x 1514 B
  EXPECT_EQ(netlink::tbf_words(netlink::tbf_for_rate(parse_spec("rate 40gbit"))),
            "rate 40000000000bit burst 5000000 limit 1514000");
}

TEST(TbfQdisc, OnlyRateAndLimitGoOnATokenBucket) {
  EXPECT_TRUE(netlink::is_rate_only(parse_spec("rate 1gbit")));
  EXPECT_TRUE(netlink::is_rate_only(parse_spec("rate 1gbit limit 100")));
  EXPECT_FALSE(netlink::is_rate_only(parse_spec("delay 1ms rate 1gbit")));
  EXPECT_FALSE(netlink::is_rate_only(parse_spec("loss 1%")));
  EXPECT_FALSE(netlink::is_rate_only(parse_spec("limit 100")));
  EXPECT_THROW(netlink::tbf_for_rate(parse_spec("delay 1ms rate 1gbit")), InputError);
  EXPECT_THROW(netlink::tbf_for_rate(parse_spec("rate 1gbit 20")), InputError);  // overhead
}

}  // namespace
}  // namespace fabriclab::netem
