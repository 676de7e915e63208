// The flow probe against the real iperf3 between two lab namespaces: which
// ranks it picks, and that its event holds what the flow did (a flow moved
// bytes, its share resent is a share). Needs root and iperf3: skipped with
// the reason otherwise.
#include "runner/scenario/flow_probe.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "runner/topology/lab_network.h"
#include "runner/topology/topology.h"
#include "tests/runner/netns_test.h"
#include "tests/support/ci_skip.h"

namespace fabriclab::runner {
namespace {

TEST(FlowProbeRanks, FromTheFirstImpairedRankToTheNextInTheRing) {
  EXPECT_EQ(flow_probe_ranks({2}, 4), std::make_pair(2, 3));
  EXPECT_EQ(flow_probe_ranks({3, 1}, 4), std::make_pair(3, 0));
  EXPECT_EQ(flow_probe_ranks({}, 4), std::make_pair(0, 1));
}

// Two ranks in the runner's own namespace, as host mode's --ranks-per-host 2
// launches them: their flow would cross the loopback, never the lab link.
class TwoRanksOnOneHost : public LabNetwork {
 public:
  int world_size() const override { return 2; }
  std::string master_addr() const override { return "10.0.0.1"; }
  std::vector<LocalRank> local_ranks() const override {
    return {{0, 0, 2, -1, "host 10.0.0.1", "10.0.0.1"}, {1, 1, 2, -1, "host 10.0.0.1", "10.0.0.1"}};
  }
  std::vector<netem::Target> impairment_targets(const std::vector<int>&,
                                                netem::Direction) const override {
    return {};
  }
  std::vector<CounterSource> counter_sources() const override { return {}; }
};

TEST(FlowProbe, RefusesTwoRanksThatShareAHost) {
  try {
    run_flow_probe(TwoRanksOnOneHost(), 0, 1, 1);
    ADD_FAILURE() << "probed a host's loopback";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("share one host"), std::string::npos) << e.what();
  }
}

using FlowProbeTest = testing::NetnsTest;

TEST_F(FlowProbeTest, OneIperf3FlowBetweenTwoRanks) {
  if (std::system("command -v iperf3 >/dev/null 2>&1") != 0) SKIP_OR_FAIL_IN_CI("needs iperf3");
  auto topology = Topology::build({2, run_id_}, *ledger_);
  const NamespaceNetwork network(*topology);
  const nlohmann::json flow = run_flow_probe(network, 1, 0, 1);
  EXPECT_EQ(flow["from"], "r1");
  EXPECT_EQ(flow["to"], "r0");
  // A flow ran and was measured; how fast is the CPU's business, not the
  // test's (rates: `fabriclab bench impair`, doc/ci.md).
  EXPECT_GT(flow["goodput_gbps"].get<double>(), 0);
  EXPECT_GT(flow["bytes_sent"].get<double>(), 0);
  EXPECT_GT(flow["mss_bytes"].get<int64_t>(), 500);
  const double share = flow["retx_share"].get<double>();
  EXPECT_GE(share, 0.0);
  EXPECT_LT(share, 0.05);  // a clean link resends next to nothing
  EXPECT_GE(flow["seconds"].get<double>(), 0.99);  // asked for 1 s; load only stretches it
}

}  // namespace
}  // namespace fabriclab::runner
