// Our RTM_NEWQDISC bytes against tc's, for every fixture captured by
// capture_fixtures.sh (tests/netem/fixtures/). A fixture tc rejected must be
// rejected by our parser too.
#include <gtest/gtest.h>

#include "common/build_paths.h"
#include "common/input_error.h"
#include "netem/netlink/qdisc_message.h"
#include "netem/spec_parse.h"
#include "tests/netem/tc_fixture.h"

namespace fabriclab::netem {
namespace {

const std::string kFixtureDir =
    std::string(fabriclab::build_paths::source_dir()) + "/tests/netem/fixtures";

TEST(EncoderFixture, ThereAreManyFixtures) {
  auto fixtures = testing::load_fixtures(kFixtureDir);
  EXPECT_GE(fixtures.size(), 60u) << "fixtures missing from " << kFixtureDir;
}

TEST(EncoderFixture, BytesMatchTcForEveryAcceptedSpec) {
  int compared = 0;
  for (const testing::TcFixture& f : testing::load_fixtures(kFixtureDir)) {
    if (!f.sent) continue;
    SCOPED_TRACE(f.file + ": " + f.command);
    testing::TcQdiscCommand c = testing::parse_tc_command(f.command);
    Spec spec = parse_spec(c.netem_words);
    netlink::Message ours = netlink::build_netem_qdisc(c.command, c.place, spec, 7);
    EXPECT_EQ(testing::compare_messages(ours, f.bytes), "")
        << "\n ours: " << testing::to_hex(ours) << "\n tc:   " << testing::to_hex(f.bytes);
    ++compared;
  }
  EXPECT_GE(compared, 50);
}

TEST(EncoderFixture, SpecsTcRejectsAreRejected) {
  int rejected = 0;
  for (const testing::TcFixture& f : testing::load_fixtures(kFixtureDir)) {
    if (f.sent) continue;
    SCOPED_TRACE(f.file + ": " + f.command + " (tc: " + f.tc_error + ")");
    testing::TcQdiscCommand c = testing::parse_tc_command(f.command);
    EXPECT_THROW(parse_spec(c.netem_words), InputError);
    ++rejected;
  }
  EXPECT_GE(rejected, 10);
}

TEST(EncoderFixture, RoundTripThroughPrinterKeepsTheBytes) {
  for (const testing::TcFixture& f : testing::load_fixtures(kFixtureDir)) {
    if (!f.sent) continue;
    SCOPED_TRACE(f.file + ": " + f.command);
    testing::TcQdiscCommand c = testing::parse_tc_command(f.command);
    Spec spec = parse_spec(c.netem_words);
    Spec again = parse_spec(print_spec(spec));
    EXPECT_EQ(spec, again) << "printed: " << print_spec(spec);
    EXPECT_EQ(netlink::build_netem_qdisc(c.command, c.place, spec, 1),
              netlink::build_netem_qdisc(c.command, c.place, again, 1))
        << "printed: " << print_spec(spec);
  }
}

TEST(EncoderFixture, SeqIsTheOnlyHeaderFieldWeSet) {
  netlink::QdiscPlace place;
  place.ifindex = 3;
  netlink::Message m = netlink::build_netem_qdisc(netlink::QdiscCommand::kAdd, place,
                                                  parse_spec("delay 1ms"), 0x01020304);
  ASSERT_GE(m.size(), 16u);
  EXPECT_EQ(m[8], 0x04);
  EXPECT_EQ(m[11], 0x01);
  EXPECT_EQ(m[12] | m[13] | m[14] | m[15], 0);  // pid 0: the kernel fills it in
}

}  // namespace
}  // namespace fabriclab::netem
