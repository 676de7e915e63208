// `fabriclab cleanup --iface IF [--netns NS]`: removes what fabriclab adds
// to a real interface in host mode, and nothing else. It asks each
// impairment backend in turn what it leaves on a device and has it removed
// (netem::Backend::remove_leftovers() in netem/impairment.h):
//   - netem: the root qdisc, if its handle is fabriclab's reserved fab0: (its
//     netem, or its htb + u32 peer filter with netem fab2: below; deleting the
//     root removes the whole tree). Another root qdisc is reported and left
//     alone;
//   - userspace: its nftables tables for IF, ip and ip6 `fabriclab_<dev>` and
//     `fabriclab_<dev>_in`. They are owned by the runner's netlink socket and
//     go with it; one that still exists belongs to a runner that is still
//     running (the kernel refuses to let anyone else delete it) and is
//     reported as such.
// Also what host mode's guardian runs when the runner is gone
// (impairment_guardian.h), and what a host run does first (host_run.cc).
//
// Needs CAP_NET_ADMIN in the interface's namespace. Errors: each failure is
// one line of the result (ok = false); nothing throws for a missing object.
#pragma once

#include <string>

#include "netem/impairment.h"

namespace fabriclab::runner {

// What was found on the interface and done, every backend's sentences in turn.
using InterfaceCleanup = netem::Leftovers;

// `netns`: a name under /run/netns, or "" for the caller's namespace.
InterfaceCleanup clean_interface(const std::string& netns, const std::string& device, bool dry_run);

// True when `device` exists in `netns` ("" = the caller's) and this process
// may look (one RTM_GETLINK; false without the privilege to enter `netns`).
bool interface_exists(const std::string& netns, const std::string& device);

}  // namespace fabriclab::runner
