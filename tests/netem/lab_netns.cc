#include "tests/netem/lab_netns.h"

#include <sys/wait.h>

#include <cstdio>
#include <stdexcept>

namespace fabriclab::netem::testing {

// stdout only (tests parse `tc -j` output): not run_shell(), which adds 2>&1.
std::string shell(const std::string& command, int* status) {
  std::string out;
  FILE* p = popen(command.c_str(), "r");
  if (!p) {
    if (status) *status = -1;
    return out;
  }
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  int st = pclose(p);
  if (status) *status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return out;
}

std::string netns_unavailable_reason() { return fabriclab::testing::TwoNetns::skip_reason(); }

LabNetns::LabNetns() {
  fabriclab::testing::TwoNetnsOptions options;
  options.prefix = "flnetem";  // not "fl-": that is the runs' own, which tests compare
  options.devices = {"va", "vb"};
  options.addresses = {{{"10.77.0.1/24"}, {"10.77.0.2/24", "10.77.0.3/24"}}};
  try {
    lab_ = std::make_unique<fabriclab::testing::TwoNetns>(options);
  } catch (const std::exception& e) {
    error_ = std::string("could not build the test namespaces: ") + e.what();
  }
}

std::string LabNetns::in_a(const std::string& command, int* status) const {
  return shell("ip netns exec " + a() + " " + command, status);
}

}  // namespace fabriclab::netem::testing
