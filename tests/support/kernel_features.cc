#include "tests/support/kernel_features.h"

#include <chrono>
#include <vector>

#include "tests/support/child_process.h"

namespace fabriclab::testing {
namespace {

// Runs `script` in a network namespace of its own; true when it exits 0.
bool in_scratch_netns(const std::string& script, const std::string& feature, std::string* why) {
  const RunResult r =
      run_command({"/usr/bin/unshare", "-n", "/bin/sh", "-c", "ip link set lo up && " + script}, {},
                  std::chrono::seconds(20));
  const bool ok = r.status.exited && r.status.code == 0;
  if (!ok && why != nullptr) *why = "this kernel has no " + feature + " (" + r.output + ")";
  return ok;
}

}  // namespace

bool kernel_has_netem(std::string* why) {
  return in_scratch_netns("tc qdisc add dev lo root netem delay 1ms", "sch_netem", why);
}

bool kernel_has_nfqueue(std::string* why) {
  // iptables' NFQUEUE target: the xtables target the userspace backend puts
  // in its nft rules (through nft_compat), as iptables-nft does.
  return in_scratch_netns("iptables -A INPUT -j NFQUEUE --queue-num 0 --queue-bypass",
                          "the NFQUEUE target", why);
}

}  // namespace fabriclab::testing
