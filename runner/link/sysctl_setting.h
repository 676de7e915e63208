// `sysctl`: kernel settings of the ranks' own network namespaces, for the
// scenario, in sysctl's words:
//
//   sysctl = "net.ipv4.tcp_slow_start_after_idle=1 net.ipv4.tcp_ecn=1"
//
// Applied inside the namespace of every rank of the scenario's `links` (a
// training cluster sets these on its hosts; here each rank's namespace is
// its host) and restored to the values read before, when the scenario ends.
// Only per-namespace keys (net.ipv4.*, net.ipv6.*, net.core.*) are accepted,
// and only in namespaces the runner created: a rank running in the runner's
// own namespace (host mode) is refused, so the host's sysctls are never
// changed (runner/README.md, rule 5 of the project).
#pragma once

#include "runner/link/link_setting.h"

namespace fabriclab::runner {

const LinkSettingKind& sysctl_setting();

}  // namespace fabriclab::runner
