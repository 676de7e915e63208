// Kernel errors in plain words, with the remedy.
//
// A KernelError from RtnlSocket (common/rtnl_socket.h) carries errno and the kernel's own sentence;
// explain() turns the common ones into what a student can act on:
//   EPERM/EACCES     no CAP_NET_ADMIN: run as root, or rootless inside a user
//                    and network namespace (`unshare -U -r -n`)
//   ENODEV           no such device in that namespace (`ip -n NS link`)
//   no sch_netem     the three ways kernels say it: ENOENT or EINVAL with
//                    "Specified qdisc kind is unknown" (extack), ENOENT
//                    without extack (older kernels) and EOPNOTSUPP: modprobe
//                    sch_netem, or install linux-modules-extra-$(uname -r)
//                    (Debian/Ubuntu) / kernel-modules-extra (Fedora/RHEL), or
//                    use the userspace backend
//   EEXIST           a qdisc is already there that we did not put there
// Thread-safe (pure).
#pragma once

#include <string>

#include "common/rtnl_socket.h"

namespace fabriclab::netem::netlink {

struct ErrorContext {
  std::string action;  // "add the netem qdisc"
  std::string device;  // "veth0"
  std::string netns;   // "" = current
  std::string kind;    // qdisc kind being created ("netem", "htb"), "" if none
};

// One paragraph: what failed, why in plain words, and what to do.
std::string explain(const KernelError& error, const ErrorContext& context);

// True when `error` is the kernel saying it does not know qdisc kind `kind`.
bool is_unknown_qdisc_kind(const KernelError& error, const std::string& kind);

}  // namespace fabriclab::netem::netlink
