// The `queue` link setting on a real lab switch: applied to the port toward
// the linked rank (traffic through it and past it still flows), described
// for run.json, its nft table gone with the handle; and refused, clearly,
// where the lab has no switch.
#include "runner/link/queue_setting.h"

#include <gtest/gtest.h>

#include "runner/topology/lab_network.h"
#include "runner/topology/topology.h"
#include "tests/runner/netns_test.h"
#include "tests/support/child_process.h"

namespace fabriclab::runner {
namespace {

using fabriclab::testing::run_command;

class QueueSettingTest : public testing::NetnsTest {};

TEST_F(QueueSettingTest, ThePortTowardTheLinkedRankAndNothingLeftAfter) {
  TopologySpec spec{3, run_id_};
  spec.fabric = "switch";
  const auto topology = Topology::build(spec, *ledger_);
  const NamespaceNetwork network(*topology);
  const std::string sw = topology->switch_netns();
  {
    const auto applied = queue_setting().apply(queue_setting().parse("rate 100mbit limit 64kb"), {2}, network, nullptr);
    ASSERT_EQ(applied.size(), 1u);
    const std::string what = applied[0]->describe();
    EXPECT_NE(what.find("port toward r2: rate 100mbit limit 64kb taildrop"), std::string::npos)
        << what;
    EXPECT_NE(what.find(sw), std::string::npos) << what;
    const auto tables = run_command({"/usr/sbin/ip", "netns", "exec", sw, "/usr/sbin/nft", "list", "tables"});
    EXPECT_NE(tables.output.find("fabriclab_switch_"), std::string::npos) << tables.output;
    // r0 pings r2 (through the queued port) and r1 (not queued): both answer.
    for (const std::string& to : {topology->rank(2).ipv4, topology->rank(1).ipv4}) {
      const auto ping = run_command({"/usr/sbin/ip", "netns", "exec", topology->rank(0).netns,
                                     "/usr/bin/ping", "-c", "3", "-i", "0.2", "-W", "2", to});
      EXPECT_EQ(ping.status.code, 0) << ping.output;
    }
    EXPECT_EQ(applied[0]->drops(), 0u);
  }
  const auto after = run_command({"/usr/sbin/ip", "netns", "exec", sw, "/usr/sbin/nft", "list", "tables"});
  EXPECT_EQ(after.output.find("fabriclab_switch_"), std::string::npos) << after.output;
}

TEST_F(QueueSettingTest, RefusedWithoutASwitch) {
  const auto topology = Topology::build({2, run_id_}, *ledger_);  // a pair
  const NamespaceNetwork network(*topology);
  try {
    queue_setting().apply(queue_setting().parse("rate 100mbit limit 64kb"), {1}, network, nullptr);
    FAIL() << "applied without a switch";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("kind = \"switch\""), std::string::npos) << e.what();
  }
  EXPECT_THROW(queue_setting().validate("rate 100mbit"), std::invalid_argument);
}

}  // namespace
}  // namespace fabriclab::runner
