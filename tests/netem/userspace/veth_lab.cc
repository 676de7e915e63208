#include "tests/netem/userspace/veth_lab.h"

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <regex>
#include <stdexcept>

namespace fabriclab::netem::testing {

CommandResult run_command(const std::string& command) {
  CommandResult result;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return result;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) result.output.append(buf, n);
  int status = ::pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

std::string VethLab::skip_reason() {
  if (::geteuid() != 0) return "needs root (creates network namespaces and a veth pair)";
  if (run_command("ip -V").exit_code != 0) return "needs iproute2's `ip`";
  return "";
}

VethLab::VethLab() {
  static std::atomic<int> counter{0};
  const std::string prefix =
      "flus-" + std::to_string(::getpid()) + "-" + std::to_string(counter.fetch_add(1));
  ns_a_ = prefix + "-a";
  ns_b_ = prefix + "-b";
  auto must = [&](const std::string& command) {
    CommandResult r = run_command(command);
    if (r.exit_code != 0) {
      throw std::runtime_error("VethLab: `" + command + "` failed: " + r.output);
    }
  };
  must("ip netns add " + ns_a_);
  created_a_ = true;
  must("ip netns add " + ns_b_);
  created_b_ = true;
  for (const std::string& ns : {ns_a_, ns_b_}) {
    must("ip netns exec " + ns + " sysctl -q -w net.ipv6.conf.all.disable_ipv6=1");
    must("ip netns exec " + ns + " sysctl -q -w net.ipv6.conf.default.disable_ipv6=1");
    must("ip -n " + ns + " link set lo up");
  }
  must("ip -n " + ns_a_ + " link add " + kDevice + " type veth peer name " + kDevice + " netns " +
       ns_b_);
  must("ip -n " + ns_a_ + " addr add " + kAddrA + "/24 dev " + kDevice);
  must("ip -n " + ns_b_ + " addr add " + kAddrB + "/24 dev " + kDevice);
  must("ip -n " + ns_a_ + " link set " + kDevice + " up");
  must("ip -n " + ns_b_ + " link set " + kDevice + " up");
}

VethLab::~VethLab() {
  // Deleting a namespace deletes the veth end inside it, and so the pair.
  if (created_a_) run_command("ip netns del " + ns_a_);
  if (created_b_) run_command("ip netns del " + ns_b_);
}

CommandResult VethLab::in_a(const std::string& command) const {
  return run_command("ip netns exec " + ns_a_ + " " + command);
}

CommandResult VethLab::in_b(const std::string& command) const {
  return run_command("ip netns exec " + ns_b_ + " " + command);
}

PingResult parse_ping(const std::string& output) {
  PingResult r;
  std::smatch m;
  static const std::regex counts(R"((\d+) packets transmitted, (\d+) received)");
  static const std::regex rtt(R"(= ([\d.]+)/([\d.]+)/([\d.]+)/([\d.]+) ms)");
  if (!std::regex_search(output, m, counts)) return r;
  r.transmitted = std::stoi(m[1]);
  r.received = std::stoi(m[2]);
  if (std::regex_search(output, m, rtt)) {
    r.min_ms = std::stod(m[1]);
    r.avg_ms = std::stod(m[2]);
    r.max_ms = std::stod(m[3]);
  }
  r.ok = true;
  return r;
}

}  // namespace fabriclab::netem::testing
