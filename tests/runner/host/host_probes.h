// What host-mode tests ask of a namespace that plays a host, whatever
// fixture made it (two_hosts.h, bridged_hosts.h): run a command inside it,
// time a ping from it, and list what a run may leave in it.
#pragma once

#include <chrono>
#include <regex>
#include <string>
#include <vector>

#include "tests/support/child_process.h"

namespace fabriclab::runner::testing::host_probes {

inline constexpr const char* kIp = "/usr/sbin/ip";

// argv run inside namespace `netns`.
inline std::vector<std::string> inside(const std::string& netns, std::vector<std::string> argv) {
  argv.insert(argv.begin(), {kIp, "netns", "exec", netns});
  return argv;
}

// The minimum RTT in ms of 3 pings from `netns` to `address`; -1 if none
// answered. -U: user-to-user time. By default ping times a reply by its
// kernel receive timestamp, taken before the userspace backend holds the
// packet on arrival, and would show only the outbound half of the delay.
inline double min_rtt_ms(const std::string& netns, const std::string& address) {
  auto r = fabriclab::testing::run_command(
      inside(netns, {"/usr/bin/ping", "-U", "-n", "-c", "3", "-i", "0.2", "-W", "2", address}), {},
      std::chrono::seconds(15));
  std::smatch m;
  static const std::regex kRtt("= ([0-9.]+)/([0-9.]+)/([0-9.]+)");
  if (!std::regex_search(r.output, m, kRtt)) return -1;
  return std::stod(m[1]);
}

// `nft list tables` and `tc qdisc show dev DEVICE` in `netns`, as text.
inline std::string nft_tables(const std::string& netns) {
  return fabriclab::testing::run_command(inside(netns, {"/usr/sbin/nft", "list", "tables"})).output;
}
inline std::string qdiscs(const std::string& netns, const std::string& device) {
  return fabriclab::testing::run_command(
             inside(netns, {"/usr/sbin/tc", "qdisc", "show", "dev", device}))
      .output;
}

}  // namespace fabriclab::runner::testing::host_probes
