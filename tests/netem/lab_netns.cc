#include "tests/netem/lab_netns.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

namespace fabriclab::netem::testing {

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

std::string netns_unavailable_reason() {
  if (geteuid() != 0) return "needs root to create named network namespaces (ip netns add)";
  int st = 0;
  shell("command -v ip >/dev/null 2>&1", &st);
  if (st != 0) return "ip (iproute2) is not installed";
  return "";
}

LabNetns::LabNetns() {
  std::string id = std::to_string(getpid());
  a_ = "fl-netem-" + id + "-a";
  b_ = "fl-netem-" + id + "-b";
  const std::string setup = "set -e; ip netns add " + a_ + "; ip netns add " + b_ + "; ip -n " +
                            a_ + " link add va type veth peer name vb netns " + b_ + "; ip -n " +
                            a_ + " addr add 10.77.0.1/24 dev va; ip -n " + a_ +
                            " link set va up; ip -n " + a_ + " link set lo up" + "; ip -n " + b_ +
                            " addr add 10.77.0.2/24 dev vb; ip -n " + b_ +
                            " addr add 10.77.0.3/24 dev vb; ip -n " + b_ +
                            " link set vb up; ip -n " + b_ + " link set lo up 2>&1";
  int st = 0;
  std::string out = shell("(" + setup + ") 2>&1", &st);
  if (st != 0) error_ = "could not build the test namespaces: " + out;
}

LabNetns::~LabNetns() {
  shell("ip netns del " + a_ + " 2>/dev/null; ip netns del " + b_ + " 2>/dev/null");
}

std::string LabNetns::in_a(const std::string& command, int* status) const {
  return shell("ip netns exec " + a_ + " " + command, status);
}

}  // namespace fabriclab::netem::testing
