// Two network namespaces that play two lab hosts (VMs), for host-mode tests:
//
//   [fhost-<pid>-a: laba 10.88.0.1/24, 10.89.0.1/24] <--veth--> [fhost-<pid>-b:
//   labb 10.88.0.2/24, 10.89.0.2/24]
//
// 10.88.0.x is the lab network (--hosts); 10.89.0.x on the SAME interface
// stands for management traffic (SSH on a VM's only NIC), which host mode
// must leave alone. The namespaces and the link are tests/support/two_netns.h
// (created in the constructor, deleted with everything in them in the
// destructor; nothing touches the host's network); this adds what host-mode
// tests ask of them.
#pragma once

#include <unistd.h>

#include <chrono>
#include <memory>
#include <regex>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/support/child_process.h"
#include "tests/support/two_netns.h"

namespace fabriclab::runner::testing {

class TwoHosts {
 public:
  static constexpr const char* kIp = "/usr/sbin/ip";

  TwoHosts() {
    fabriclab::testing::TwoNetnsOptions options;
    options.prefix = "fhost";
    options.devices = {"laba", "labb"};
    for (int h = 0; h < 2; ++h) options.addresses[h] = {lab_addr(h) + "/24", mgmt_addr(h) + "/24"};
    try {
      net_ = std::make_unique<fabriclab::testing::TwoNetns>(options);
    } catch (const std::exception&) {
      net_.reset();  // ok() says so; the test asserts on it
    }
  }
  TwoHosts(const TwoHosts&) = delete;
  TwoHosts& operator=(const TwoHosts&) = delete;

  bool ok() const { return net_ != nullptr; }
  const std::string& netns(int h) const { return net_->netns(h); }
  const std::string& device(int h) const { return net_->device(h); }
  static std::string lab_addr(int h) { return "10.88.0." + std::to_string(h + 1); }
  static std::string mgmt_addr(int h) { return "10.89.0." + std::to_string(h + 1); }
  static std::string hosts() { return lab_addr(0) + "," + lab_addr(1); }

  // argv run inside host h's namespace.
  std::vector<std::string> inside(int h, std::vector<std::string> argv) const {
    argv.insert(argv.begin(), {kIp, "netns", "exec", netns(h)});
    return argv;
  }

  // The minimum RTT in ms of 3 pings from host h to `address`; -1 if none
  // answered. -U: user-to-user time. By default ping times a reply by its
  // kernel receive timestamp, taken before the userspace backend holds the
  // packet on arrival, and would show only the outbound half of the delay.
  double min_rtt_ms(int h, const std::string& address) const {
    auto r = fabriclab::testing::run_command(
        inside(h, {"/usr/bin/ping", "-U", "-n", "-c", "3", "-i", "0.2", "-W", "2", address}), {},
        std::chrono::seconds(15));
    std::smatch m;
    static const std::regex kRtt("= ([0-9.]+)/([0-9.]+)/([0-9.]+)");
    if (!std::regex_search(r.output, m, kRtt)) return -1;
    return std::stod(m[1]);
  }

  // `nft list tables` and `tc qdisc show dev D` in host h, as text.
  std::string nft_tables(int h) const {
    return fabriclab::testing::run_command(inside(h, {"/usr/sbin/nft", "list", "tables"})).output;
  }
  std::string qdiscs(int h) const {
    return fabriclab::testing::run_command(
               {kIp, "netns", "exec", netns(h), "/usr/sbin/tc", "qdisc", "show", "dev", device(h)})
        .output;
  }

 private:
  std::unique_ptr<fabriclab::testing::TwoNetns> net_;
};

}  // namespace fabriclab::runner::testing
