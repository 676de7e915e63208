// The `sysctl` link setting on real namespaces: set inside the ranks'
// namespaces (read back with `ip netns exec ... sysctl`, the real client),
// restored when the handles go, and never applied to the host's own
// namespace. Needs root: skipped otherwise, saying why.
#include "runner/link/sysctl_setting.h"

#include <gtest/gtest.h>

#include "runner/topology/lab_network.h"
#include "runner/topology/topology.h"
#include "tests/runner/netns_test.h"
#include "tests/support/child_process.h"

namespace fabriclab::runner {
namespace {

using fabriclab::testing::run_command;

std::string sysctl_in(const std::string& netns, const std::string& key) {
  const auto result = run_command({"/usr/sbin/ip", "netns", "exec", netns, "/usr/sbin/sysctl", "-n", key});
  return result.output.substr(0, result.output.find('\n'));
}

std::string host_sysctl(const std::string& key) {
  const auto result = run_command({"/usr/sbin/sysctl", "-n", key});
  return result.output.substr(0, result.output.find('\n'));
}

const char* kKey = "net.ipv4.tcp_slow_start_after_idle";

class SysctlSettingTest : public testing::NetnsTest {
 protected:
  void SetUp() override {
    NetnsTest::SetUp();
    if (IsSkipped()) return;
    topology_ = Topology::build({2, run_id_}, *ledger_);
  }
  std::unique_ptr<Topology> topology_;
};

TEST_F(SysctlSettingTest, SetInTheRanksNamespacesAndRestoredAfter) {
  const std::string host_before = host_sysctl(kKey);
  const NamespaceNetwork network(*topology_);
  const std::string r1 = topology_->rank(1).netns;
  const std::string r0 = topology_->rank(0).netns;
  const std::string before = sysctl_in(r1, kKey);
  ASSERT_FALSE(before.empty()) << "sysctl read nothing in " << r1;
  const std::string wanted = before == "0" ? "1" : "0";
  {
    const auto applied = sysctl_setting().apply(
        sysctl_setting().parse(std::string(kKey) + "=" + wanted), {1}, network, nullptr);
    ASSERT_EQ(applied.size(), 1u);
    EXPECT_EQ(applied[0]->describe(), "sysctl " + std::string(kKey) + "=" + wanted + " in " +
                                          r1 + " (was " + before + ")");
    EXPECT_EQ(sysctl_in(r1, kKey), wanted);
    EXPECT_EQ(sysctl_in(r0, kKey), before) << "rank 0 is not on the scenario's links";
    EXPECT_EQ(host_sysctl(kKey), host_before);
  }
  EXPECT_EQ(sysctl_in(r1, kKey), before);
  EXPECT_EQ(host_sysctl(kKey), host_before);
}

TEST_F(SysctlSettingTest, AKeyTheKernelLacksOrAValueItRefusesLeavesNothingSet) {
  const NamespaceNetwork network(*topology_);
  const std::string r0 = topology_->rank(0).netns;
  const std::string before = sysctl_in(r0, kKey);
  const std::string wanted = before == "0" ? "1" : "0";
  // A key this kernel lacks is refused at load, before anything is set.
  EXPECT_THROW(sysctl_setting().parse(std::string(kKey) + "=" + wanted + " net.ipv4.no_such_knob=1"),
               std::invalid_argument);
  // One the kernel refuses to write: the ones set before it are restored.
  EXPECT_THROW(sysctl_setting().apply(
                   sysctl_setting().parse(std::string(kKey) + "=" + wanted + " net.ipv4.tcp_ecn=abc"),
                   {0}, network, nullptr),
               std::runtime_error);
  EXPECT_EQ(sysctl_in(r0, kKey), before);
}

// A rank in the runner's own namespace (host mode) is the host: refused.
class HostNamespaceNetwork : public LabNetwork {
 public:
  int world_size() const override { return 1; }
  std::string master_addr() const override { return "127.0.0.1"; }
  std::vector<LocalRank> local_ranks() const override {
    return {{0, 0, 1, -1, "this host", "127.0.0.1"}};
  }
  std::vector<netem::Target> impairment_targets(const std::vector<int>&,
                                                netem::Direction) const override {
    return {};
  }
  std::vector<CounterSource> counter_sources() const override { return {}; }
};

TEST(SysctlSetting, NeverTouchesTheHostsOwnNamespace) {
  const std::string before = host_sysctl(kKey);
  try {
    sysctl_setting().apply(sysctl_setting().parse(std::string(kKey) + "=" + (before == "0" ? "1" : "0")),
                           {0}, HostNamespaceNetwork(), nullptr);
    ADD_FAILURE() << "applied in the host's namespace";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("only inside the lab namespaces"), std::string::npos);
  }
  EXPECT_EQ(host_sysctl(kKey), before);
}

TEST(SysctlSetting, AcceptsOnlyPerNamespaceKeys) {
  EXPECT_NO_THROW(sysctl_setting().validate("net.ipv4.tcp_ecn=1 net.core.rmem_max=4194304"));
  EXPECT_THROW(sysctl_setting().validate("kernel.panic=1"), std::invalid_argument);
  EXPECT_THROW(sysctl_setting().validate("net.ipv4.tcp_ecn"), std::invalid_argument);
  EXPECT_THROW(sysctl_setting().validate(""), std::invalid_argument);
  EXPECT_THROW(sysctl_setting().validate("net.ipv4.tcp_ecn=1;reboot"), std::invalid_argument);
}

}  // namespace
}  // namespace fabriclab::runner
