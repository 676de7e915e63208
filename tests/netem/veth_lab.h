// The netem tests' link: tests/support/two_netns.h with IPv6 off, so that
// nothing but the test's own traffic crosses the link and counts of packets
// through an impairment are exact.
//
//   [flus-<pid>-<n>-a: eth0 10.99.0.1/24] <--veth--> [flus-<pid>-<n>-b: eth0 10.99.0.2/24]
//
// Needs root; VethLab::skip_reason() says why it cannot run.
#pragma once

#include <string>

#include "tests/support/two_netns.h"

namespace fabriclab::netem::testing {

using CommandResult = fabriclab::testing::ShellResult;

// Runs `command` with /bin/sh, capturing its output.
inline CommandResult run_command(const std::string& command) {
  return fabriclab::testing::run_shell(command);
}

class VethLab : public fabriclab::testing::TwoNetns {
 public:
  static constexpr const char* kDevice = "eth0";  // in both namespaces
  static constexpr const char* kAddrA = "10.99.0.1";
  static constexpr const char* kAddrB = "10.99.0.2";

  VethLab();  // throws std::runtime_error (with `ip`'s output) if it cannot build

  const std::string& ns_a() const { return netns(0); }
  const std::string& ns_b() const { return netns(1); }
  // `command` run inside namespace a / b (ip netns exec).
  CommandResult in_a(const std::string& command) const { return in(0, command); }
  CommandResult in_b(const std::string& command) const { return in(1, command); }
};

// ping statistics parsed from `ping -q` output.
struct PingResult {
  int transmitted = 0;
  int received = 0;
  double min_ms = 0, avg_ms = 0, max_ms = 0;
  bool ok = false;  // the summary lines were found
};
PingResult parse_ping(const std::string& output);

}  // namespace fabriclab::netem::testing
