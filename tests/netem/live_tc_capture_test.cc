// Captures tc's bytes live (strace in a throwaway network namespace) for every
// command in fixtures/commands.txt and compares them with ours. This catches
// a tc on this machine that encodes differently from the committed fixtures.
// Skips, with the reason, when tc, strace or namespaces are unavailable.
#include <gtest/gtest.h>

#include <fstream>

#include "netem/netlink/qdisc_message.h"
#include "netem/spec_parse.h"
#include "tests/netem/tc_fixture.h"

namespace fabriclab::netem {
namespace {

TEST(LiveTcCapture, OurBytesMatchTcOnThisMachine) {
  std::string why;
  if (!testing::can_capture_tc(&why)) GTEST_SKIP() << why;
  std::ifstream in(std::string(FABRICLAB_SOURCE_DIR) + "/tests/netem/fixtures/commands.txt");
  ASSERT_TRUE(in) << "commands.txt missing";
  std::string line;
  int compared = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    SCOPED_TRACE("tc qdisc " + line);
    auto tc_bytes = testing::capture_tc(line);
    testing::TcQdiscCommand c = testing::parse_tc_command("tc qdisc " + line);
    if (!tc_bytes) {
      EXPECT_ANY_THROW(parse_spec(c.netem_words)) << "tc rejected it, we accepted it";
      continue;
    }
    Spec spec = parse_spec(c.netem_words);
    netlink::Message ours = netlink::build_netem_qdisc(c.command, c.place, spec, 1);
    EXPECT_EQ(testing::compare_messages(ours, *tc_bytes), "");
    ++compared;
  }
  EXPECT_GE(compared, 50);
}

}  // namespace
}  // namespace fabriclab::netem
