// Rootless mode: where user namespaces are allowed, an ordinary user gets the
// privileges a lab needs (CAP_NET_ADMIN, CAP_SYS_ADMIN) over namespaces it
// creates itself -- the same as `unshare --user --map-root-user --net --mount`.
// Nothing on the host changes; the kernel frees everything when the runner and
// its ranks are gone.
//
// Thread safety: enter_rootless_namespace_if_needed() must run while the
// process has exactly one thread (the kernel refuses CLONE_NEWUSER otherwise):
// call it first thing in the command, before logging threads, libtorch pools
// or anything else starts one. The checks are thread-safe.
#pragma once

#include <sys/types.h>

#include <string>

#include "common/uid_map.h"  // in_initial_user_namespace(), host_uid()

namespace fabriclab::runner {

// How the run gets its privileges.
enum class PrivilegeMode {
  kPrivileged,  // already root (host root, or root of a user namespace we are in)
  kRootless,    // this call entered a new user + network + mount namespace
};

// If the effective uid is 0, does nothing and returns kPrivileged. Otherwise
// unshares a user namespace (own uid/gid mapped to root, setgroups denied), a
// network namespace and a mount namespace (made private); brings `lo` up in
// the new network namespace; mounts a private tmpfs on /run/netns if that
// directory exists, so lab namespaces can have names (netns_mount_dir()).
// `why` (if not null) receives one sentence saying what happened.
//
// Throws std::runtime_error when a user namespace cannot be entered, saying
// why (sysctl values, the kernel's errno) and what to do; std::logic_error if
// called with more than one thread.
PrivilegeMode enter_rootless_namespace_if_needed(std::string* why = nullptr);

// For `fabriclab doctor` and error messages: can this user create a user
// namespace with a network namespace inside? Answered by trying, in a forked
// child, so nothing in this process changes.
struct UserNamespaceCheck {
  bool allowed = false;
  std::string detail;  // one or two sentences: what was tried, the reason, the remedy
};
UserNamespaceCheck check_user_namespaces();

}  // namespace fabriclab::runner
