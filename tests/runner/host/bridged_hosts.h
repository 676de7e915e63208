// N network namespaces that play N lab hosts on one switch, for host-mode
// tests with more than two hosts:
//
//   [fhn-<pid>-<k>-h0: lab0 10.88.0.1/24, 10.89.0.1/24] --veth--+
//   [fhn-<pid>-<k>-h1: lab1 10.88.0.2/24, 10.89.0.2/24] --veth--+-- br0 in
//   ...                                                          |   fhn-<pid>-<k>-sw
//   [fhn-<pid>-<k>-hN-1: ...]                            --veth--+
//
// As in two_hosts.h, 10.88.0.x is the lab network (--hosts) and 10.89.0.x on
// the same interface stands for management traffic. The bridge lives in a
// namespace of its own, so nothing touches the host's network. Everything is
// created in the constructor and removed in the destructor -- also when the
// test failed -- by deleting exactly the namespaces it made (which deletes
// the veths, the bridge, and any qdisc or nft table on them). Names carry
// the pid and a per-process counter: parallel tests never collide.
#pragma once

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <regex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "tests/runner/host/host_probes.h"
#include "tests/support/child_process.h"
#include "tests/support/two_netns.h"

namespace fabriclab::runner::testing {

class BridgedHosts {
 public:
  static constexpr const char* kIp = "/usr/sbin/ip";

  explicit BridgedHosts(int hosts) {
    static std::atomic<int> counter{0};
    stem_ = "fhn-" + std::to_string(::getpid()) + "-" + std::to_string(counter.fetch_add(1));
    try {
      build(hosts);
    } catch (const std::exception& e) {
      error_ = e.what();
      destroy();
    }
  }
  ~BridgedHosts() { destroy(); }
  BridgedHosts(const BridgedHosts&) = delete;
  BridgedHosts& operator=(const BridgedHosts&) = delete;

  // "" when built; else what failed (for the test's assertion).
  const std::string& error() const { return error_; }
  int size() const { return static_cast<int>(hosts_.size()); }
  const std::string& netns(int h) const { return hosts_.at(static_cast<size_t>(h)); }
  const std::string& switch_netns() const { return switch_; }
  static std::string device(int h) { return "lab" + std::to_string(h); }
  static std::string lab_addr(int h) { return "10.88.0." + std::to_string(h + 1); }
  static std::string mgmt_addr(int h) { return "10.89.0." + std::to_string(h + 1); }
  // "10.88.0.1,10.88.0.2,...": every host's lab address, the lead first.
  std::string host_list() const {
    std::string list;
    for (int h = 0; h < size(); ++h) list += (h == 0 ? "" : ",") + lab_addr(h);
    return list;
  }

  // argv run inside host h's namespace; ping, nft and tc there (host_probes.h).
  std::vector<std::string> inside(int h, std::vector<std::string> argv) const {
    return host_probes::inside(netns(h), std::move(argv));
  }
  double min_rtt_ms(int h, const std::string& address) const {
    return host_probes::min_rtt_ms(netns(h), address);
  }
  std::string nft_tables(int h) const { return host_probes::nft_tables(netns(h)); }
  std::string qdiscs(int h) const { return host_probes::qdiscs(netns(h), device(h)); }
  std::string pids(int h) const {
    return fabriclab::testing::run_command({kIp, "netns", "pids", netns(h)}).output;
  }

 private:
  static void must(const std::string& command) {
    const auto r = fabriclab::testing::run_shell(command);
    if (r.exit_code != 0)
      throw std::runtime_error("BridgedHosts: `" + command + "` failed: " + r.output);
  }

  void build(int hosts) {
    switch_ = stem_ + "-sw";
    must("ip netns add " + switch_);
    made_.push_back(switch_);
    must("ip -n " + switch_ + " link add br0 type bridge");
    must("ip -n " + switch_ + " link set br0 up");
    for (int h = 0; h < hosts; ++h) {
      const std::string ns = stem_ + "-h" + std::to_string(h);
      must("ip netns add " + ns);
      made_.push_back(ns);
      hosts_.push_back(ns);
      must("ip -n " + ns + " link set lo up");
      const std::string port = "p" + std::to_string(h);
      must("ip -n " + switch_ + " link add " + port + " type veth peer name " + device(h) +
           " netns " + ns);
      must("ip -n " + switch_ + " link set " + port + " master br0 up");
      must("ip -n " + ns + " addr add " + lab_addr(h) + "/24 dev " + device(h));
      must("ip -n " + ns + " addr add " + mgmt_addr(h) + "/24 dev " + device(h));
      must("ip -n " + ns + " link set " + device(h) + " up");
    }
  }

  void destroy() {
    for (const std::string& ns : made_) fabriclab::testing::run_shell("ip netns del " + ns);
    made_.clear();
  }

  std::string stem_;
  std::string switch_;
  std::vector<std::string> hosts_;
  std::vector<std::string> made_;  // every namespace this made, to delete
  std::string error_;
};

}  // namespace fabriclab::runner::testing
