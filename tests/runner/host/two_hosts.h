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
#include <utility>
#include <vector>

#include "tests/runner/host/host_probes.h"
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

  // argv run inside host h's namespace; ping, nft and tc there (host_probes.h).
  std::vector<std::string> inside(int h, std::vector<std::string> argv) const {
    return host_probes::inside(netns(h), std::move(argv));
  }
  double min_rtt_ms(int h, const std::string& address) const {
    return host_probes::min_rtt_ms(netns(h), address);
  }
  std::string nft_tables(int h) const { return host_probes::nft_tables(netns(h)); }
  std::string qdiscs(int h) const { return host_probes::qdiscs(netns(h), device(h)); }

 private:
  std::unique_ptr<fabriclab::testing::TwoNetns> net_;
};

}  // namespace fabriclab::runner::testing
