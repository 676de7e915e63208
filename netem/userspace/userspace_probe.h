// Can the userspace backend run here? nfnetlink_queue must bind and the
// kernel must accept an nftables rule with the NFQUEUE target (both tried in
// a throwaway network namespace of a short-lived thread, so the host is never
// touched). Needs CAP_NET_ADMIN/CAP_SYS_ADMIN (root, or rootless inside a
// user namespace). The netlink backend's probe has the same name and shape
// (netem/netlink/netlink_probe.h); the runner reaches both through
// netem/backend_probe.h.
//
// Thread-safe. Takes a few milliseconds.
#pragma once

#include <string>

#include "netem/backend_probe.h"

namespace fabriclab::netem::userspace {

// kYes or kNo (never kUnknown: without the privilege to try, it cannot run).
// `why` (if not null) receives one sentence: what works, or what is missing
// and the remedy.
Availability probe_backend(std::string* why);

}  // namespace fabriclab::netem::userspace
