#include "netem/netlink/kernel_error.h"

#include <cerrno>
#include <cstring>

namespace fabriclab::netem::netlink {

bool is_unknown_qdisc_kind(const KernelError& e, const std::string& kind) {
  if (kind.empty()) return false;
  const std::string& k = e.kernel_message();
  if (k.find("qdisc kind is unknown") != std::string::npos) return true;
  // Kernels without extack (before 4.15) answer ENOENT; some builds that
  // know the name but lack the module answer EOPNOTSUPP.
  if (k.empty() && (e.error() == ENOENT || e.error() == EOPNOTSUPP)) return true;
  return false;
}

std::string explain(const KernelError& e, const ErrorContext& c) {
  std::string where = c.device.empty() ? "" : " on " + c.device;
  if (!c.netns.empty()) where += " in network namespace " + c.netns;
  std::string head = "cannot " + c.action + where + ": ";
  std::string kernel =
      e.kernel_message().empty() ? std::string(strerror(e.error())) : e.kernel_message();

  if (c.kind == "netem" && is_unknown_qdisc_kind(e, c.kind))
    return head + "this kernel has no sch_netem (the kernel said: \"" + kernel +
           "\"). Load it with `modprobe sch_netem`; if the module is missing, install it "
           "(Debian/Ubuntu: `apt install linux-modules-extra-$(uname -r)`; Fedora/RHEL: "
           "`dnf install kernel-modules-extra`), or use the userspace backend: "
           "--backend userspace (or --backend auto).";
  if (is_unknown_qdisc_kind(e, c.kind))
    return head + "this kernel has no sch_" + c.kind + " (the kernel said: \"" + kernel +
           "\"). Load it with `modprobe sch_" + c.kind + "`.";
  switch (e.error()) {
    case EPERM:
    case EACCES:
      return head +
             "permission denied: changing qdiscs needs CAP_NET_ADMIN. Run as root (sudo), "
             "or rootless inside a user and network namespace: `unshare -U -r -n`.";
    case ENODEV:
      return head + "no device " + c.device +
             (c.netns.empty() ? " here (see `ip link`)."
                              : " in that namespace (see `ip -n " + c.netns + " link`).");
    case EEXIST:
      return head + "a qdisc is already there (the kernel said: \"" + kernel +
             "\"). It was not put there by fabriclab: look with `tc qdisc show dev " + c.device +
             "`, remove it yourself, or pass --replace.";
    default:
      return head + kernel + " (errno " + std::to_string(e.error()) + ").";
  }
}

}  // namespace fabriclab::netem::netlink
