// Test fixture: two network namespaces joined by one veth pair, with
// addresses, built with iproute2's `ip` and torn down on destruction -- also
// when the test failed -- by deleting exactly the two namespaces it created
// (which deletes the veth pair and everything on it: qdiscs, nft tables).
//
//   [<prefix>-<pid>-<n>-a: devices[0] addresses[0]...] <--veth-->
//   [<prefix>-<pid>-<n>-b: devices[1] addresses[1]...]
//
// Both ends and both loopbacks are up. With disable_ipv6, nothing but the
// test's own traffic crosses the link (no router/neighbour solicitations), so
// counts of packets through an impairment are exact.
//
// Names carry the pid and a per-process counter, so parallel test processes
// and several fixtures in one test never collide. Needs root;
// TwoNetns::skip_reason() says why it cannot run (for GTEST_SKIP).
// The netem and host-mode fixtures (tests/netem/lab_netns.h,
// tests/netem/userspace/veth_lab.h, tests/runner/host/two_hosts.h) are this
// with their own names and addresses.
#pragma once

#include <array>
#include <string>
#include <vector>

namespace fabriclab::testing {

struct ShellResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

// Runs `command` with /bin/sh, capturing stdout and stderr.
ShellResult run_shell(const std::string& command);

struct TwoNetnsOptions {
  std::string prefix = "fltest";                          // namespace names start with it
  std::array<std::string, 2> devices = {"eth0", "eth0"};  // veth end in a, in b
  std::array<std::vector<std::string>, 2> addresses;      // CIDR, e.g. "10.99.0.1/24"
  bool disable_ipv6 = false;
};

class TwoNetns {
 public:
  // Throws std::runtime_error (with `ip`'s output) if it cannot build; what
  // it built so far is removed first.
  explicit TwoNetns(TwoNetnsOptions options);
  ~TwoNetns();
  TwoNetns(const TwoNetns&) = delete;
  TwoNetns& operator=(const TwoNetns&) = delete;

  // "" when the fixture can be built here, else why not.
  static std::string skip_reason();

  // side 0 = a, 1 = b.
  const std::string& netns(int side) const { return netns_[side]; }
  const std::string& device(int side) const { return options_.devices[side]; }
  // `command` run inside a side's namespace (ip netns exec), through /bin/sh.
  ShellResult in(int side, const std::string& command) const;

 private:
  void build();
  void destroy();

  TwoNetnsOptions options_;
  std::array<std::string, 2> netns_;
  std::array<bool, 2> created_ = {false, false};
};

}  // namespace fabriclab::testing
