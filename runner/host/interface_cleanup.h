// `fabriclab cleanup --iface IF [--netns NS]`: removes what fabriclab adds
// to a real interface in host mode, and nothing else:
//   - the root qdisc, if its handle is fabriclab's reserved fab0: (the netem
//     backend's netem, or its htb + u32 peer filter with netem fab2: below;
//     deleting the root removes the whole tree). Another root qdisc is
//     reported and left alone;
//   - the userspace backend's nftables tables for IF (netem/userspace/
//     nft_queue_rules.h): ip and ip6 `fabriclab_<dev>` and `fabriclab_<dev>_in`.
//     They are owned by the runner's netlink socket and go with it; one that
//     still exists belongs to a runner that is still running (the kernel
//     refuses to let anyone else delete it) and is reported as such.
// Also what host mode's guardian runs when the runner is gone
// (impairment_guardian.h).
//
// Needs CAP_NET_ADMIN in the interface's namespace. Errors: each failure is
// one line of the result (ok = false); nothing throws for a missing object.
#pragma once

#include <string>
#include <vector>

namespace fabriclab::runner::host {

struct InterfaceCleanup {
  std::vector<std::string> actions;  // one sentence per object found (or "nothing ...")
  std::vector<std::string> removed;  // the sentences of those that were fabriclab's and went
                                     // (with dry_run: would go)
  bool ok = true;                    // false when something could not be removed
};

// `netns`: a name under /run/netns, or "" for the caller's namespace.
InterfaceCleanup clean_interface(const std::string& netns, const std::string& device, bool dry_run);

}  // namespace fabriclab::runner::host
