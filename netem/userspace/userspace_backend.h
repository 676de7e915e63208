// The userspace impairment backend, for kernels without sch_netem.
//
// Mechanism: an nftables rule in the target namespace diverts the device's
// egress (optionally only towards the given peers) to an NFQUEUE; a thread of
// this process reads each packet's metadata and answers with a verdict --
// NF_DROP for a loss, NF_ACCEPT once its delay has passed -- deciding as
// sch_netem would (impairment_model.h). Packets never cross into userspace:
// only ~100-byte metadata messages and verdicts do, and GSO super-packets go
// whole, which is why it keeps up with a veth link (see the bench figures in
// the README; `fabriclab bench impair`).
//
// Why NFQUEUE and not a TUN wire: NFQUEUE impairs an existing device in place
// (the runner's veth, or a VM's eth1 towards one peer), exactly where netem
// would sit, with no change to the topology, no packet copies and no
// re-injection path; a TUN wire would have to replace the link itself and
// copy every byte through userspace twice.
//
// Supported words: delay/jitter/correlation, distribution (uniform, normal,
// pareto, paretonormal), loss random/state/gemodel with correlation, reorder
// (with gap), limit. Refused with an InputError: duplicate, corrupt, ecn, rate,
// slot (they need the packet's bytes or a serializing queue).
//
// Lifetime: the impairment lives in this process. Destroying the Applied
// deletes the nftables tables first (no new packets), then accepts everything
// still held and stops the thread. The tables are owned by a netlink socket
// (NFT_TABLE_F_OWNER), so the kernel removes them even if the process is
// killed: a crash never leaves a device black-holed.
//
// Differences from sch_netem worth knowing: IP only (ARP is not delayed);
// a delayed packet still counts against its TCP socket's small-queue budget
// (netem orphans it), which can cap a single flow on a very long delay --
// see the README's fidelity table.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "netem/impairment.h"

namespace fabriclab::netem {

struct UserspaceOptions {
  // Seed of the random model (loss, jitter, reorder); 0 = from
  // std::random_device. Tests and recordings set it to be reproducible.
  uint64_t seed = 0;
};

std::unique_ptr<Backend> make_userspace_backend(const UserspaceOptions& options = {});

// True when this backend can run here: nfnetlink_queue can be bound and the
// kernel accepts an nftables rule with the NFQUEUE target (both tried in a
// throwaway network namespace, so the host is never touched). Needs
// CAP_NET_ADMIN/CAP_SYS_ADMIN (root, or rootless inside a user namespace).
// `why` (if not null) receives one sentence: what works, or what is missing
// and the remedy.
bool userspace_backend_available(std::string* why);

}  // namespace fabriclab::netem
