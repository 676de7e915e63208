// Does this kernel have sch_netem? Asked the honest way: add a netem qdisc to
// lo in a throwaway network namespace and see whether the kernel knows the
// kind. The namespace is created by a short-lived thread (unshare(CLONE_NEWNET)
// is per thread) and vanishes with it, so the host is never touched.
//
// Without the privilege to create a namespace, it falls back to what the
// filesystem says: /sys/module/sch_netem (loaded), modules.builtin (built
// in), or a sch_netem.ko* under /lib/modules/$(uname -r) (loadable).
//
// Thread-safe. Takes a few milliseconds.
#pragma once

#include <string>

namespace fabriclab::netem::netlink {

enum class NetemSupport { kPresent, kAbsent, kUnknown };

// `why` (if not null) receives one sentence: how it was found out.
NetemSupport probe_netem(std::string* why);

}  // namespace fabriclab::netem::netlink
