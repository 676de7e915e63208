// Test fixture support: two network namespaces joined by one veth pair,
// built with `ip` (iproute2) and removed on destruction -- also when the test
// failed -- by deleting exactly the two namespaces it created (which deletes
// the veth pair with them).
//
//   [<prefix>-a: eth0 10.99.0.1/24] <--veth--> [<prefix>-b: eth0 10.99.0.2/24]
//
// IPv6 is disabled in both namespaces so that nothing but the test's own
// traffic crosses the link (no router/neighbour solicitations): counts of
// packets through an impairment are then exact.
//
// Names carry the pid and a per-process counter, so parallel test processes
// never collide. Needs root; VethLab::skip_reason() says why it cannot run.
#pragma once

#include <string>

namespace fabriclab::netem::testing {

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

// Runs `command` with /bin/sh, capturing its output.
CommandResult run_command(const std::string& command);

class VethLab {
 public:
  VethLab();  // throws std::runtime_error (with `ip`'s output) if it cannot build
  ~VethLab();
  VethLab(const VethLab&) = delete;
  VethLab& operator=(const VethLab&) = delete;

  // "" when the lab can be built here, else why not (for GTEST_SKIP).
  static std::string skip_reason();

  const std::string& ns_a() const { return ns_a_; }
  const std::string& ns_b() const { return ns_b_; }
  static constexpr const char* kDevice = "eth0";  // in both namespaces
  static constexpr const char* kAddrA = "10.99.0.1";
  static constexpr const char* kAddrB = "10.99.0.2";

  // `command` run inside namespace a / b (ip netns exec).
  CommandResult in_a(const std::string& command) const;
  CommandResult in_b(const std::string& command) const;

 private:
  std::string ns_a_, ns_b_;
  bool created_a_ = false, created_b_ = false;
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
