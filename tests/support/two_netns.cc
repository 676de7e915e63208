#include "tests/support/two_netns.h"

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <stdexcept>

namespace fabriclab::testing {

ShellResult run_shell(const std::string& command) {
  ShellResult result;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return result;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) result.output.append(buf, n);
  const int status = ::pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

std::string TwoNetns::skip_reason() {
  if (::geteuid() != 0) return "needs root (creates network namespaces and a veth pair)";
  if (run_shell("ip -V").exit_code != 0) return "needs iproute2's `ip`";
  return "";
}

TwoNetns::TwoNetns(TwoNetnsOptions options) : options_(std::move(options)) {
  static std::atomic<int> counter{0};
  const std::string stem = options_.prefix + "-" + std::to_string(::getpid()) + "-" +
                           std::to_string(counter.fetch_add(1));
  netns_ = {stem + "-a", stem + "-b"};
  try {
    build();
  } catch (...) {
    destroy();
    throw;
  }
}

TwoNetns::~TwoNetns() { destroy(); }

void TwoNetns::build() {
  auto must = [](const std::string& command) {
    const ShellResult r = run_shell(command);
    if (r.exit_code != 0)
      throw std::runtime_error("TwoNetns: `" + command + "` failed: " + r.output);
  };
  for (int side : {0, 1}) {
    must("ip netns add " + netns_[side]);
    created_[side] = true;
    if (options_.disable_ipv6) {
      must("ip netns exec " + netns_[side] + " sysctl -q -w net.ipv6.conf.all.disable_ipv6=1");
      must("ip netns exec " + netns_[side] + " sysctl -q -w net.ipv6.conf.default.disable_ipv6=1");
    }
    must("ip -n " + netns_[side] + " link set lo up");
  }
  must("ip -n " + netns_[0] + " link add " + device(0) + " type veth peer name " + device(1) +
       " netns " + netns_[1]);
  for (int side : {0, 1}) {
    for (const std::string& address : options_.addresses[side])
      must("ip -n " + netns_[side] + " addr add " + address + " dev " + device(side));
    must("ip -n " + netns_[side] + " link set " + device(side) + " up");
  }
}

void TwoNetns::destroy() {
  // Deleting a namespace deletes the veth end inside it, and so the pair.
  for (int side : {0, 1}) {
    if (created_[side]) run_shell("ip netns del " + netns_[side]);
    created_[side] = false;
  }
}

ShellResult TwoNetns::in(int side, const std::string& command) const {
  return run_shell("ip netns exec " + netns_[side] + " " + command);
}

}  // namespace fabriclab::testing
