// What this kernel can do, asked of iproute2 and nftables themselves in a
// throwaway network namespace (`unshare -n`). Tests decide their kernel skips
// with these and never with the product's own probes (netem/backend_probe.h):
// a regression in a probe would otherwise turn a failure into a skip. Tests
// of a probe compare its answer with these. Needs root; false (with why)
// otherwise.
#pragma once

#include <string>

namespace fabriclab::testing {

// `tc qdisc add dev lo root netem delay 1ms` succeeds: sch_netem is here
// (built in, or loaded on demand).
bool kernel_has_netem(std::string* why);

// iptables accepts `-j NFQUEUE --queue-num 0 --queue-bypass`: the NFQUEUE
// target the userspace backend needs is here.
bool kernel_has_nfqueue(std::string* why);

// An ordinary user (uid/gid 65534, nobody) can unshare(CLONE_NEWUSER |
// CLONE_NEWNET): what rootless mode needs. Tried in a forked child that drops
// to that user first, with no code of fabriclab's (its own check,
// runner/topology/user_namespace.h, is what the rootless tests test). `why`
// gets the errno when not. Needs root (to become nobody); false otherwise.
bool user_namespaces_work(std::string* why);

}  // namespace fabriclab::testing
