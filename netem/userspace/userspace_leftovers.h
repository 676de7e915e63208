// The userspace backend's leftovers on a device: its nftables tables
// `fabriclab_<dev>` and `fabriclab_<dev>_in`, ip and ip6 (nft_queue_rules.h).
// They are owned by the applying process's netlink socket and go with it, so
// one that still exists belongs to a runner that is still running: the
// kernel refuses to let anyone else delete it (EPERM), and that is reported
// as such. Other tables are never looked at. What the userspace backend's
// remove_leftovers() does; the netlink backend's counterpart is
// netem/netlink/netlink_leftovers.h.
//
// Needs CAP_NET_ADMIN in the device's namespace. Errors: none thrown for a
// missing or undeletable table (one sentence of the result, ok = false);
// std::runtime_error from ScopedNetns when the namespace cannot be entered.
// Thread-safe (one socket per request).
#pragma once

#include "netem/impairment.h"

namespace fabriclab::netem::userspace {

// Removes (with dry_run: only names) fabriclab's nft tables for
// target.device in target.netns / target.netns_fd.
Leftovers remove_leftovers(const Target& target, bool dry_run);

}  // namespace fabriclab::netem::userspace
