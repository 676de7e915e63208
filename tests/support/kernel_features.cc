#include "tests/support/kernel_features.h"

#include <grp.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
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

bool user_namespaces_work(std::string* why) {
  const pid_t child = ::fork();
  if (child < 0) {
    if (why != nullptr) *why = std::string("fork: ") + std::strerror(errno);
    return false;
  }
  if (child == 0) {
    // Exit codes: 0 = it worked, 100 = could not become nobody, else errno.
    constexpr uid_t kNobody = 65534;
    if (::setgroups(0, nullptr) != 0 || ::setgid(kNobody) != 0 || ::setuid(kNobody) != 0)
      ::_exit(100);
    ::_exit(::unshare(CLONE_NEWUSER | CLONE_NEWNET) == 0 ? 0 : (errno & 0x7f));
  }
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (code == 0) return true;
  if (why != nullptr) {
    *why = code == 100 ? std::string("cannot become uid 65534 to try (needs root)")
                       : "unshare(CLONE_NEWUSER | CLONE_NEWNET) as uid 65534 fails here: " +
                             std::string(code > 0 ? std::strerror(code) : "the child died");
  }
  return false;
}

}  // namespace fabriclab::testing
