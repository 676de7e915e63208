// Real namespaces, real veth pairs and a real bridge, checked with the real
// `ping` and `ip` run inside them through the launcher. Needs root: skipped
// with the reason otherwise (the rootless case is in rootless_test.cc).
#include "runner/topology/topology.h"

#include <gtest/gtest.h>

#include "common/input_error.h"
#include "runner/ledger/run_id.h"
#include "runner/process/process.h"
#include "tests/runner/netns_test.h"

namespace fabriclab::runner {
namespace {

using testing::TempDir;

// Runs argv inside `netns_fd`; returns its stdout (empty on failure, with
// the exit status in `status`).
std::string run_in(int netns_fd, std::vector<std::string> argv, ExitStatus* status = nullptr) {
  return testing::run_in_netns(netns_fd, std::move(argv), status);
}

bool pings(const RankNetwork& from, const RankNetwork& to) {
  ExitStatus status;
  run_in(from.netns_fd, {"ping", "-n", "-q", "-c", "1", "-W", "3", to.ipv4}, &status);
  return status.success();
}

class TopologyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SKIP_UNLESS_NETNS_PRIVILEGES();
    links_before_ = testing::host_links();
    addresses_before_ = testing::host_ipv4_addresses();
    ledger_ = std::make_unique<Ledger>(run_id_, ledger_dir_.path());
  }
  void TearDown() override {
    if (!ledger_) return;
    // Whatever the test did, the host looks as before and nothing is left.
    EXPECT_EQ(testing::host_links(), links_before_);
    EXPECT_EQ(testing::host_ipv4_addresses(), addresses_before_);
    EXPECT_TRUE(testing::run_netns_entries("fl-" + run_id_ + "-").empty());
    EXPECT_TRUE(ledger_->snapshot()["entries"].empty()) << ledger_->snapshot().dump(2);
  }

  std::string run_id_ = make_run_id();
  TempDir ledger_dir_;
  std::unique_ptr<Ledger> ledger_;
  std::set<std::string> links_before_;
  std::set<std::string> addresses_before_;
};

// Without segmentation offload every device of the lab links takes packets
// of one segment (as `ip -d link` reports), on both ends, on the switch
// ports too; with it (the default) the kernel's 65535.
TEST_F(TopologyTest, WithoutSegmentationOffloadTheLinksCarryOneSegmentPerPacket) {
  auto topology = Topology::build({3, run_id_, "10.77.0.0", "auto", false}, *ledger_);
  for (const Link& link : topology->links()) {
    for (const Endpoint* end : {&link.a, &link.b}) {
      const int fd = end == &link.a ? topology->rank(link.rank).netns_fd : topology->switch_netns_fd();
      const std::string details = run_in(fd, {"ip", "-d", "-o", "link", "show", "dev", end->device});
      EXPECT_NE(details.find("gso_max_segs 1 "), std::string::npos) << end->describe() << ": " << details;
    }
  }
  EXPECT_NE(topology->describe().find("MTU-sized frames"), std::string::npos);
  auto defaults = Topology::build({2, make_run_id()}, *ledger_);
  const std::string details =
      run_in(defaults->rank(0).netns_fd, {"ip", "-d", "-o", "link", "show", "dev", "eth0"});
  EXPECT_NE(details.find("gso_max_segs 65535 "), std::string::npos) << details;
}

TEST_F(TopologyTest, TwoRanksAreAVethPairThatPings) {
  auto topology = Topology::build({2, run_id_}, *ledger_);
  ASSERT_EQ(topology->size(), 2);
  EXPECT_FALSE(topology->has_switch());
  const RankNetwork& r0 = topology->rank(0);
  const RankNetwork& r1 = topology->rank(1);
  EXPECT_EQ(r0.netns, "fl-" + run_id_ + "-r0");
  EXPECT_EQ(r0.device, "eth0");
  EXPECT_EQ(r0.ipv4, "10.77.0.1");
  EXPECT_EQ(r1.ipv4, "10.77.0.2");
  EXPECT_EQ(topology->master_addr(), "10.77.0.1");
  // Rank 0's ingress is rank 1's egress: the two directions of one link.
  EXPECT_EQ(r0.ingress.describe(), r1.egress.describe());
  ASSERT_EQ(topology->links().size(), 1u);
  EXPECT_EQ(topology->links()[0].name, "r0-r1");

  // Named like `ip netns add` would: visible to `ip netns exec`.
  EXPECT_TRUE(topology->named());
  EXPECT_EQ(testing::run_netns_entries("fl-" + run_id_ + "-"),
            (std::set<std::string>{r0.netns, r1.netns}));
  // Recorded in the ledger, with the inode of each namespace.
  auto entries = ledger_->snapshot()["entries"];
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0]["kind"], "netns");
  EXPECT_EQ(entries[0]["path"], "/run/netns/" + r0.netns);
  EXPECT_NE(entries[0]["inode"], 0);

  // The address lives inside the namespace, on eth0, and the link is up.
  std::string addresses = run_in(r0.netns_fd, {"ip", "-o", "-4", "addr", "show", "dev", "eth0"});
  EXPECT_NE(addresses.find("10.77.0.1/24"), std::string::npos) << addresses;
  std::string links = run_in(r0.netns_fd, {"ip", "-o", "link", "show"});
  EXPECT_NE(links.find("eth0@"), std::string::npos) << links;
  EXPECT_NE(links.find("state UP"), std::string::npos) << links;
  EXPECT_EQ(testing::host_ipv4_addresses(), addresses_before_);
  EXPECT_EQ(testing::host_links(), links_before_);

  EXPECT_TRUE(pings(r0, r1));
  EXPECT_TRUE(pings(r1, r0));
}

TEST_F(TopologyTest, FourRanksMeetOnABridgeInASwitchNamespace) {
  auto topology = Topology::build({4, run_id_}, *ledger_);
  ASSERT_TRUE(topology->has_switch());
  EXPECT_EQ(topology->switch_netns(), "fl-" + run_id_ + "-sw");
  ASSERT_EQ(topology->links().size(), 4u);
  for (int i = 0; i < 4; ++i) {
    const RankNetwork& rank = topology->rank(i);
    EXPECT_EQ(rank.ipv4, "10.77.0." + std::to_string(i + 1));
    EXPECT_EQ(rank.egress.netns, rank.netns);
    EXPECT_EQ(rank.ingress.netns, topology->switch_netns());
    EXPECT_EQ(rank.ingress.device, "port-r" + std::to_string(i));
    EXPECT_EQ(rank.ingress.netns_fd, topology->switch_netns_fd());
  }
  std::string bridge =
      run_in(topology->switch_netns_fd(), {"ip", "-o", "link", "show", "master", "br0"});
  for (int i = 0; i < 4; ++i) {
    EXPECT_NE(bridge.find("port-r" + std::to_string(i) + "@"), std::string::npos) << bridge;
  }
  EXPECT_EQ(testing::run_netns_entries("fl-" + run_id_ + "-").size(), 5u);
  EXPECT_EQ(ledger_->snapshot()["entries"].size(), 5u);
  EXPECT_EQ(testing::host_links(), links_before_);
  for (int i = 1; i < 4; ++i) EXPECT_TRUE(pings(topology->rank(0), topology->rank(i))) << i;
  EXPECT_TRUE(pings(topology->rank(3), topology->rank(1)));
}

// Leaf-spine: routers in namespaces of their own. Read back with iproute2:
// the ToR reaches the other rack over both spines in one ECMP route, hashes
// flows by their headers' addresses and ports, and is its hosts' gateway; the ranks of the other
// rack answer ping across three routers.
TEST_F(TopologyTest, LeafSpineRoutesEachRackOverBothSpines) {
  auto topology = Topology::build({4, run_id_, "10.77.0.0", "leaf_spine"}, *ledger_);
  EXPECT_EQ(topology->switch_netns(), "fl-" + run_id_ + "-tor0");
  const int tor0 = topology->switch_netns_fd();
  const std::string route = run_in(tor0, {"ip", "-j", "route", "show", "10.77.2.0/24"});
  EXPECT_NE(route.find("\"gateway\":\"10.78.0.1\",\"dev\":\"to-spine0\""), std::string::npos) << route;
  EXPECT_NE(route.find("\"gateway\":\"10.78.1.1\",\"dev\":\"to-spine1\""), std::string::npos) << route;
  // Policy 3 over the headers' 5-tuple (0x37: addresses, protocol, ports), as
  // a switch hashes; policy 1 would use a packet's socket hash.
  EXPECT_EQ(run_in(tor0, {"sysctl", "-n", "net.ipv4.fib_multipath_hash_policy"}), "3\n");
  EXPECT_EQ(run_in(tor0, {"sysctl", "-n", "net.ipv4.fib_multipath_hash_fields"}), "55\n");
  EXPECT_EQ(run_in(tor0, {"sysctl", "-n", "net.ipv4.ip_forward"}), "1\n");
  const RankNetwork& r0 = topology->rank(0);
  EXPECT_EQ(r0.ipv4, "10.77.1.1");
  EXPECT_EQ(topology->rank(3).ipv4, "10.77.2.4");
  EXPECT_NE(run_in(r0.netns_fd, {"ip", "route", "show", "default"}).find("via 10.77.1.254 dev eth0"),
            std::string::npos);
  const std::string ping = run_in(r0.netns_fd, {"ping", "-c", "1", "-W", "2", "10.77.2.4"});
  EXPECT_NE(ping.find("ttl=61"), std::string::npos) << ping;  // 64 less three routers
  EXPECT_NE(topology->describe().find("router spine1"), std::string::npos);
  EXPECT_EQ(testing::run_netns_entries("fl-" + run_id_ + "-").size(), 8u);
}

TEST_F(TopologyTest, OneRankHasOnlyLoopback) {
  auto topology = Topology::build({1, run_id_}, *ledger_);
  EXPECT_EQ(topology->rank(0).device, "");
  EXPECT_EQ(topology->master_addr(), "127.0.0.1");
  EXPECT_TRUE(topology->links().empty());
  EXPECT_TRUE(pings(topology->rank(0), topology->rank(0)));  // lo is up
}

TEST_F(TopologyTest, DestroyRemovesEverythingAndIsIdempotent) {
  auto topology = Topology::build({3, run_id_}, *ledger_);
  EXPECT_EQ(testing::run_netns_entries("fl-" + run_id_ + "-").size(), 4u);
  topology->destroy();
  EXPECT_TRUE(testing::run_netns_entries("fl-" + run_id_ + "-").empty());
  EXPECT_TRUE(ledger_->snapshot()["entries"].empty());
  topology->destroy();
}

TEST_F(TopologyTest, BadSpecIsAnInputErrorAndCreatesNothing) {
  EXPECT_THROW(Topology::build({0, run_id_}, *ledger_), InputError);
  EXPECT_THROW(Topology::build({kMaxRanks + 1, run_id_}, *ledger_), InputError);
  EXPECT_THROW(Topology::build({2, "Bad/Id"}, *ledger_), InputError);
  EXPECT_THROW(Topology::build({2, run_id_, "10.77.0.5"}, *ledger_), InputError);
  EXPECT_TRUE(ledger_->snapshot()["entries"].empty());
}

TEST_F(TopologyTest, AFailedBuildRemovesWhatItHadCreatedAndNothingElse) {
  // Someone else's namespace entry with the name rank 1 would get.
  const std::string taken = "/run/netns/fl-" + run_id_ + "-r1";
  { std::ofstream create(taken); }
  try {
    Topology::build({2, run_id_}, *ledger_);
    FAIL() << "build over an existing namespace name must fail";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("File exists"), std::string::npos) << e.what();
  }
  EXPECT_EQ(testing::run_netns_entries("fl-" + run_id_ + "-"),
            (std::set<std::string>{"fl-" + run_id_ + "-r1"}));
  ::unlink(taken.c_str());
}

}  // namespace
}  // namespace fabriclab::runner
