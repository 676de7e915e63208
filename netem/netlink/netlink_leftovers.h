// The netem backend's leftovers on a device: fabriclab's root qdisc, handle
// fab0: (the netem qdisc, or the htb + u32 peer filter tree with netem fab2:
// below it; deleting the root removes the whole tree with its filters).
// A root qdisc with any other handle is not fabriclab's: it is reported and
// left alone. What NetlinkBackend::remove_leftovers() does; the userspace
// backend's counterpart is netem/userspace/userspace_leftovers.h.
//
// Needs CAP_NET_ADMIN in the device's namespace. Errors: none thrown; a
// failure is one sentence of the result with ok = false. Thread-safe.
#pragma once

#include "netem/impairment.h"

namespace fabriclab::netem::netlink {

// Removes (with dry_run: only names) fabriclab's root qdisc on
// target.device in target.netns / target.netns_fd.
Leftovers remove_leftovers(const Target& target, bool dry_run);

}  // namespace fabriclab::netem::netlink
