// An uplink that fails (runner/scenario/uplink_fault.h) on a real leaf-spine
// lab network, read back with iproute2 inside the namespaces: the spine's
// port goes down and the ToR's loses its carrier while the ECMP routes keep
// both spines (the blackhole before detection); once detected the ToRs'
// routes lose the failed spine's next hop and the racks still reach each
// other over the other spine; when the link is back and detected again the
// routes have both spines (and the spine its own route) again. A fault cut
// short -- the scenario stopped mid-fault, as on SIGTERM -- sets everything
// back. Needs root: skipped with the reason otherwise.
#include "runner/scenario/uplink_fault.h"

#include <gtest/gtest.h>

#include <thread>

#include "runner/ledger/run_id.h"
#include "runner/topology/topology.h"
#include "tests/runner/netns_test.h"

namespace fabriclab::runner {
namespace {

using namespace std::chrono_literals;
using testing::TempDir;

std::string run_in(int netns_fd, std::vector<std::string> argv) {
  return testing::run_in_netns(netns_fd, std::move(argv));
}

class UplinkFaultTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SKIP_UNLESS_NETNS_PRIVILEGES();
    ledger_ = std::make_unique<Ledger>(run_id_, ledger_dir_.path());
    topology_ = Topology::build({4, run_id_, "10.77.0.0", "leaf_spine"}, *ledger_);
    network_ = std::make_unique<NamespaceNetwork>(*topology_);
  }
  void TearDown() override {
    network_.reset();
    topology_.reset();
    if (ledger_) {
      EXPECT_TRUE(ledger_->snapshot()["entries"].empty());
    }
  }

  int netns(const std::string& router) const {
    return topology_->switch_namespace_of(router).fd();
  }
  // `ip route show PREFIX` in `router`'s namespace.
  std::string route(const std::string& router, const std::string& prefix) const {
    return run_in(netns(router), {"ip", "route", "show", prefix});
  }
  bool pings(int from_rank, int to_rank) const {
    const std::string out = run_in(topology_->rank(from_rank).netns_fd,
                                   {"ping", "-n", "-c", "2", "-i", "0.2", "-W", "2",
                                    topology_->rank(to_rank).ipv4});
    return out.find(" 0% packet loss") != std::string::npos;
  }
  std::unique_ptr<UplinkFault> fault(const LinkFaultSpec& spec) const {
    std::vector<CounterSource> uplinks;
    for (const CounterSource& s : network_->counter_sources())
      if (s.uplink) uplinks.push_back(s);
    return std::make_unique<UplinkFault>(spec, std::vector<UplinkFaultPlace>{
                                                   *network_->uplink_fault_place("tor0-spine0")},
                                         uplinks);
  }

  std::string run_id_ = make_run_id();
  TempDir ledger_dir_;
  std::unique_ptr<Ledger> ledger_;
  std::unique_ptr<Topology> topology_;
  std::unique_ptr<NamespaceNetwork> network_;
};

TEST_F(UplinkFaultTest, PlacesTheSpinesPortAndTheRoutesAroundIt) {
  const std::optional<UplinkFaultPlace> place = network_->uplink_fault_place("tor0-spine0");
  ASSERT_TRUE(place);
  EXPECT_EQ(place->down.netns, "fl-" + run_id_ + "-spine0");
  EXPECT_EQ(place->down.device, "to-tor0");
  ASSERT_EQ(place->withdraw.size(), 2u);  // tor0 to rack 2, tor1 to rack 1
  for (const RouteChange& c : place->withdraw) {
    ASSERT_EQ(c.hops.size(), 1u) << c.router;
    EXPECT_EQ(c.hops[0].device, "to-spine1") << c.router;
  }
  EXPECT_FALSE(network_->uplink_fault_place("tor0-spine7"));
  EXPECT_FALSE(network_->uplink_fault_place("r0-tor0"));
}

TEST_F(UplinkFaultTest, WithdrawsAfterDetectionAndRestoresAfterTheLinkIsBack) {
  LinkFaultSpec spec;
  spec.length_s = 1.5;
  spec.at_step = 1;
  spec.detect_s = 0.3;
  auto f = fault(spec);
  using Clock = ScenarioFault::Clock;
  std::vector<std::string> kinds;
  const auto poll = [&](int64_t steps) {
    for (const auto& e : f->poll(Clock::now(), steps, steps)) kinds.push_back(e.kind);
  };
  poll(0);
  EXPECT_TRUE(kinds.empty());
  poll(1);
  ASSERT_EQ(kinds, std::vector<std::string>{"link_down"});
  // Down, not yet detected: the spine's port is down, the ToR's has no
  // carrier, and the ToR's route still has both spines (Linux keeps a
  // linkdown next hop: the blackhole).
  EXPECT_NE(run_in(netns("spine0"), {"ip", "-br", "link", "show", "to-tor0"}).find("DOWN"),
            std::string::npos);
  EXPECT_NE(run_in(netns("tor0"), {"ip", "link", "show", "to-spine0"}).find("NO-CARRIER"),
            std::string::npos);
  std::string tor0 = route("tor0", "10.77.2.0/24");
  EXPECT_NE(tor0.find("to-spine0"), std::string::npos) << tor0;
  EXPECT_NE(tor0.find("linkdown"), std::string::npos) << tor0;
  EXPECT_GT(f->due_in(Clock::now()), Clock::duration::zero());
  std::this_thread::sleep_for(f->due_in(Clock::now()));
  poll(2);
  ASSERT_EQ(kinds.back(), "route_withdrawn");
  tor0 = route("tor0", "10.77.2.0/24");
  EXPECT_EQ(tor0.find("to-spine0"), std::string::npos) << tor0;
  EXPECT_NE(tor0.find("to-spine1"), std::string::npos) << tor0;
  const std::string tor1 = route("tor1", "10.77.1.0/24");
  EXPECT_EQ(tor1.find("to-spine0"), std::string::npos) << tor1;
  EXPECT_TRUE(pings(0, 2));  // r0 to r2, over spine1 both ways
  EXPECT_TRUE(pings(3, 1));
  std::this_thread::sleep_for(f->due_in(Clock::now()));
  poll(3);
  ASSERT_EQ(kinds.back(), "link_up");
  // Up, not yet detected: the routes still avoid spine0.
  EXPECT_EQ(route("tor0", "10.77.2.0/24").find("to-spine0"), std::string::npos);
  std::this_thread::sleep_for(f->due_in(Clock::now()));
  poll(4);
  ASSERT_EQ(kinds.back(), "route_restored");
  tor0 = route("tor0", "10.77.2.0/24");
  EXPECT_NE(tor0.find("to-spine0"), std::string::npos) << tor0;
  EXPECT_NE(tor0.find("to-spine1"), std::string::npos) << tor0;
  EXPECT_EQ(tor0.find("linkdown"), std::string::npos) << tor0;
  EXPECT_NE(route("tor1", "10.77.1.0/24").find("to-spine0"), std::string::npos);
  // The spine's own route to rack 1, flushed with its port, is back.
  EXPECT_NE(route("spine0", "10.77.1.0/24").find("to-tor0"), std::string::npos);
  EXPECT_EQ(f->due_in(Clock::now()), Clock::duration::max());
  const std::vector<ScenarioFault::Event> end = f->finish();
  ASSERT_EQ(end.size(), 1u);
  ASSERT_EQ(end[0].kind, "uplink_phases");
  std::vector<std::string> phases;
  for (const auto& p : end[0].fields["phases"]) phases.push_back(p["phase"]);
  EXPECT_EQ(phases, (std::vector<std::string>{"before", "blackhole", "rerouted", "recovering",
                                              "after"}));
  // The pings while rerouted went through spine1's uplinks only.
  const nlohmann::json& rerouted = end[0].fields["phases"][2]["bytes"];
  EXPECT_LT(rerouted["tor0-spine0"]["up"].get<uint64_t>(), 1000u);  // nothing routed into it
  EXPECT_GT(rerouted["tor0-spine1"]["up"].get<uint64_t>(), 0u);
  EXPECT_TRUE(pings(0, 2));
}

// The scenario stopped mid-fault (SIGTERM, a deadline): finish() sets the
// port up and restores the routes at once, and says it was cut short.
TEST_F(UplinkFaultTest, CutShortSetsThePortAndTheRoutesBack) {
  LinkFaultSpec spec;
  spec.length_s = 30;
  spec.at_step = 1;
  spec.detect_s = 0.2;
  auto f = fault(spec);
  using Clock = ScenarioFault::Clock;
  f->poll(Clock::now(), 1, 1);
  std::this_thread::sleep_for(f->due_in(Clock::now()));
  ASSERT_EQ(f->poll(Clock::now(), 2, 2).at(0).kind, "route_withdrawn");
  ASSERT_EQ(route("tor0", "10.77.2.0/24").find("to-spine0"), std::string::npos);
  const std::vector<ScenarioFault::Event> end = f->finish();
  ASSERT_EQ(end.size(), 3u);
  EXPECT_EQ(end[0].kind, "link_up");
  EXPECT_TRUE(end[0].fields.value("cut_short", false));
  EXPECT_EQ(end[1].kind, "route_restored");
  EXPECT_EQ(end[2].kind, "uplink_phases");
  EXPECT_EQ(run_in(netns("spine0"), {"ip", "-br", "link", "show", "to-tor0"}).find("DOWN"),
            std::string::npos);
  EXPECT_NE(route("tor0", "10.77.2.0/24").find("to-spine0"), std::string::npos);
  EXPECT_NE(route("spine0", "10.77.1.0/24").find("to-tor0"), std::string::npos);
  f.reset();
  EXPECT_TRUE(pings(0, 2));
}

}  // namespace
}  // namespace fabriclab::runner
