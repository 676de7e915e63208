// Does this kernel have sch_netem? Asked the honest way: add a netem qdisc to
// lo in a throwaway network namespace and see whether the kernel knows the
// kind. The namespace is created by a short-lived thread (unshare(CLONE_NEWNET)
// is per thread) and vanishes with it, so the host is never touched.
//
// Without the privilege to create a namespace, it falls back to what the
// filesystem says: /sys/module/sch_netem (loaded), modules.builtin (built
// in), or a sch_netem.ko* under /lib/modules/$(uname -r) (loadable).
//
// The userspace backend's probe has the same name and shape
// (netem/userspace/userspace_probe.h); the runner reaches both through
// netem/backend_probe.h.
//
// Thread-safe. Takes a few milliseconds.
#pragma once

#include <string>

#include "netem/backend_probe.h"

namespace fabriclab::netem::netlink {

// kYes: the kernel has sch_netem; kNo: it has not; kUnknown: could not tell
// (then apply() tries). `why` (if not null) receives one sentence: how it was
// found out.
Availability probe_backend(std::string* why);

}  // namespace fabriclab::netem::netlink
