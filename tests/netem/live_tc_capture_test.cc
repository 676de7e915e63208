// Captures tc's bytes live (strace in a throwaway network namespace) for every
// command in fixtures/commands.txt and compares them with ours. This catches
// a tc on this machine that encodes differently from the committed fixtures.
// Skips, with the reason, when tc, strace or namespaces are unavailable.
#include <gtest/gtest.h>

#include <fstream>

#include "common/build_paths.h"
#include "netem/netlink/peer_filter.h"
#include "netem/netlink/qdisc_message.h"
#include "netem/netlink/tbf_qdisc.h"
#include "netem/spec_parse.h"
#include "tests/netem/tc_fixture.h"
#include "tests/support/ci_skip.h"

namespace fabriclab::netem {
namespace {

TEST(LiveTcCapture, OurBytesMatchTcOnThisMachine) {
  std::string why;
  if (!testing::can_capture_tc(&why)) SKIP_OR_FAIL_IN_CI(why);
  std::ifstream in(std::string(fabriclab::build_paths::source_dir()) +
                   "/tests/netem/fixtures/commands.txt");
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

// What we derive for netem's words, sent by tc on this machine, against ours.
TEST(TbfQdisc, LiveTcSendsOurBytesForTheDerivedWords) {
  std::string why;
  if (!testing::can_capture_tc(&why)) SKIP_OR_FAIL_IN_CI(why);
  for (const char* words :
       {"rate 1gbit", "rate 250mbit limit 2000", "rate 100kbit", "rate 5gbit"}) {
    SCOPED_TRACE(words);
    const netlink::TbfSettings t = netlink::tbf_for_rate(parse_spec(words));
    const std::string args = "add dev lo root handle fab0: tbf " + netlink::tbf_words(t);
    const auto tc_bytes = testing::capture_tc(args);
    ASSERT_TRUE(tc_bytes.has_value()) << "tc sent nothing for: tc qdisc " << args;
    netlink::QdiscPlace root{1, 0xFFFFFFFFu, netlink::kRootHandle};
    EXPECT_EQ(testing::compare_messages(
                  netlink::build_tbf_qdisc(netlink::QdiscCommand::kAdd, root, t, 1), *tc_bytes),
              "");
  }
}

}  // namespace
}  // namespace fabriclab::netem
