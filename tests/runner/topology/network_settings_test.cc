// The settings run.json's `network` records, read back from real lab
// namespaces and checked against the real clients run inside them (`sysctl
// -n`, `ip -j link`); a value changed in one namespace shows there only. The
// netns tests need root (skipped with the reason otherwise); the shape of
// the JSON and of the printed block needs nothing.
#include "runner/topology/network_settings.h"

#include <gtest/gtest.h>

#include "runner/ledger/ledger.h"
#include "runner/ledger/run_id.h"
#include "runner/process/process.h"
#include "runner/topology/topology.h"
#include "tests/runner/netns_test.h"

namespace fabriclab::runner {
namespace {

using testing::TempDir;

// The command's stdout without its trailing newlines.
std::string run_in(int netns_fd, std::vector<std::string> argv) {
  std::string out = testing::run_in_netns(netns_fd, std::move(argv));
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

std::string sysctl_value(const NetworkSettings& s, const std::string& name) {
  for (const auto& [key, value] : s.sysctls)
    if (key == name) return value.value_or("<unreadable>");
  return "<absent>";
}

TEST(NetworkSettings, JsonAndPrintedBlockNameEverySetting) {
  NetworkSettings a;
  a.netns = "fl-x-r0";
  a.ranks = {0};
  a.device = "eth0";
  a.mtu_bytes = 1500;
  a.sysctls = {{"net.ipv4.tcp_ecn", "2"},
               {"net.ipv4.tcp_rmem", "4096 131072 6291456"},
               {"net.ipv4.tcp_min_rtt_wlen", std::nullopt}};
  NetworkSettings b = a;
  b.netns = "fl-x-r1";
  b.ranks = {1};
  NetworkSettings c = a;
  c.netns = "fl-x-r2";
  c.ranks = {2};
  c.sysctls[0].second = "0";

  const nlohmann::json json = network_settings_json({a, b, c});
  ASSERT_EQ(json.size(), 3u);
  EXPECT_EQ(json[1]["netns"], "fl-x-r1");
  EXPECT_EQ(json[1]["ranks"], nlohmann::json::array({1}));
  EXPECT_EQ(json[1]["device"], "eth0");
  EXPECT_EQ(json[1]["mtu"], 1500);
  EXPECT_EQ(json[1]["sysctls"]["net.ipv4.tcp_rmem"], "4096 131072 6291456");
  EXPECT_TRUE(json[1]["sysctls"]["net.ipv4.tcp_min_rtt_wlen"].is_null()) << "unreadable: null";
  EXPECT_FALSE(json[1].contains("host"));

  const std::string text = describe_network_settings({a, b, c});
  EXPECT_NE(text.find("fl-x-r0, fl-x-r1: eth0 mtu 1500, qdisc none"), std::string::npos) << text;
  EXPECT_NE(text.find("fl-x-r2: eth0 mtu 1500"), std::string::npos) << text;
  EXPECT_NE(text.find("tcp_rmem=\"4096 131072 6291456\""), std::string::npos) << text;
  EXPECT_NE(text.find("tcp_min_rtt_wlen=?"), std::string::npos) << text;
}

TEST(NetworkSettings, RecordsEverySysctlLab02Needs) {
  // Read-only, in the test's own namespace: every name is a per-namespace
  // TCP setting this kernel knows.
  const NetworkSettings own = read_network_settings(-1, "lo");
  EXPECT_EQ(own.mtu_bytes, 65536);
  ASSERT_EQ(own.sysctls.size(), lab_sysctl_names().size());
  for (const auto& [name, value] : own.sysctls) EXPECT_TRUE(value) << name << " unreadable";
  EXPECT_EQ(sysctl_value(own, "net.ipv4.tcp_sack"),
            testing::read_file("/proc/sys/net/ipv4/tcp_sack").substr(0, 1));
}

using NetworkSettingsNetnsTest = testing::NetnsTest;

TEST_F(NetworkSettingsNetnsTest, ReadBackFromEachRankNamespaceAsItsClientsShowThem) {
  auto topology = Topology::build({2, run_id_}, *ledger_);
  // Changed in rank 1's namespace only, as a lab's setting would: the
  // settings must come from each namespace, not from the host.
  const int r1 = topology->rank(1).netns_fd;
  run_in(r1, {"sysctl", "-q", "-w", "net.ipv4.tcp_slow_start_after_idle=0"});
  run_in(r1, {"ip", "link", "set", "dev", "eth0", "mtu", "1400"});
  // A route metric and a root qdisc, as a cluster's tuning would set them.
  const auto r1_routes = nlohmann::json::parse(run_in(r1, {"ip", "-j", "route", "show", "dev", "eth0"}));
  ASSERT_EQ(r1_routes.size(), 1u);
  const std::string subnet = r1_routes[0]["dst"].get<std::string>();
  run_in(r1, {"ip", "route", "change", subnet, "dev", "eth0", "initcwnd", "20", "initrwnd", "30"});
  run_in(r1, {"tc", "qdisc", "replace", "dev", "eth0", "root", "tbf", "rate", "1gbit", "burst",
              "64kb", "latency", "10ms"});

  const std::vector<NetworkSettings> all = read_network_settings(*topology);
  ASSERT_EQ(all.size(), 2u);
  for (int i = 0; i < 2; ++i) {
    const NetworkSettings& s = all[static_cast<size_t>(i)];
    const int fd = topology->rank(i).netns_fd;
    EXPECT_EQ(s.netns, topology->rank(i).netns);
    EXPECT_EQ(s.ranks, std::vector<int>{i});
    EXPECT_EQ(s.device, "eth0");
    const auto link =
        nlohmann::json::parse(run_in(fd, {"ip", "-j", "link", "show", "dev", "eth0"}));
    EXPECT_EQ(s.mtu_bytes, link.at(0)["mtu"].get<int>()) << s.netns;
    const auto qdiscs = nlohmann::json::parse(run_in(fd, {"tc", "-j", "qdisc", "show", "dev", "eth0"}));
    EXPECT_EQ(s.device_state.root_qdisc, qdiscs.at(0)["kind"].get<std::string>()) << s.netns;
    const auto routes = nlohmann::json::parse(run_in(fd, {"ip", "-j", "route", "show", "dev", "eth0"}));
    ASSERT_EQ(s.device_state.routes.size(), routes.size()) << s.netns;
    for (size_t k = 0; k < routes.size(); ++k) {
      EXPECT_EQ(s.device_state.routes[k].destination, routes[k]["dst"].get<std::string>());
      std::map<std::string, unsigned> shown;
      if (routes[k].contains("metrics"))
        for (const auto& m : routes[k]["metrics"])
          for (const auto& [name, value] : m.items()) shown[name] = value.get<unsigned>();
      EXPECT_EQ(s.device_state.routes[k].metrics, shown) << s.netns << " " << routes[k].dump();
    }
    for (const std::string& name : lab_sysctl_names()) {
      std::string shown = run_in(fd, {"sysctl", "-n", name});
      for (char& c : shown) c = c == '\t' ? ' ' : c;
      EXPECT_EQ(sysctl_value(s, name), shown) << s.netns << " " << name;
    }
  }
  EXPECT_EQ(all[1].mtu_bytes, 1400);
  EXPECT_EQ(all[1].device_state.root_qdisc, "tbf");
  EXPECT_EQ(all[0].device_state.root_qdisc, "noqueue") << "a veth's default";
  EXPECT_EQ(all[1].device_state.routes.at(0).metrics,
            (std::map<std::string, unsigned>{{"initcwnd", 20}, {"initrwnd", 30}}));
  EXPECT_TRUE(all[0].device_state.routes.at(0).metrics.empty()) << "the kernel's defaults";
  EXPECT_NE(describe_network_settings(all).find("route " + subnet + " (initcwnd 20 initrwnd 30)"),
            std::string::npos)
      << describe_network_settings(all);
  EXPECT_EQ(sysctl_value(all[1], "net.ipv4.tcp_slow_start_after_idle"), "0");
  EXPECT_EQ(sysctl_value(all[0], "net.ipv4.tcp_slow_start_after_idle"), "1")
      << "a new namespace starts from the kernel's default";
}

TEST_F(NetworkSettingsNetnsTest, OneRankHasNoLabDevice) {
  auto topology = Topology::build({1, run_id_}, *ledger_);
  const std::vector<NetworkSettings> all = read_network_settings(*topology);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].device, "");
  EXPECT_FALSE(all[0].mtu_bytes);
  EXPECT_NE(describe_network_settings(all).find("no lab device"), std::string::npos);
}

}  // namespace
}  // namespace fabriclab::runner
