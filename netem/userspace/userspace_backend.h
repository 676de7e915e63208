// The userspace impairment backend, for kernels without sch_netem.
//
// Mechanism: an nftables rule in the target namespace diverts the device's
// egress (optionally only towards the given peers) to an NFQUEUE; a thread of
// this process reads each packet's metadata and answers with a verdict --
// NF_DROP for a loss, NF_ACCEPT once its delay has passed -- deciding as
// sch_netem would (impairment_model.h). Packets never cross into userspace:
// only ~100-byte metadata messages and verdicts do, and GSO super-packets go
// whole, which is why it keeps up with a veth link (see the bench figures in
// doc/benchmarks.md; `fabriclab bench impair`).
//
// Why NFQUEUE and not a TUN wire: NFQUEUE impairs an existing device in place
// (the runner's veth, or a VM's eth1 towards one peer), exactly where netem
// would sit, with no change to the topology, no packet copies and no
// re-injection path; a TUN wire would have to replace the link itself and
// copy every byte through userspace twice.
//
// Supported words: delay/jitter/correlation, distribution (uniform, normal,
// pareto, paretonormal), loss random/state/gemodel with correlation, reorder
// (with gap), rate (netem's serialization, rate_serializer.h: each packet
// charged its IP length + a 14-byte Ethernet header; a GSO aggregate --
// segmentation_offload = true -- as one frame), limit (with a rate and no
// limit, netem's derived one, netem/spec_limit.h). Refused with an InputError:
// duplicate, corrupt, ecn, slot (they need the packet's bytes).
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
// see the fidelity table in doc/benchmarks.md.
#pragma once

#include <memory>
#include <string>

#include "netem/impairment.h"

namespace fabriclab::netem {

// options.seed: the random model's seed (BackendOptions). Whether the backend
// can run here: userspace_probe.h; what it leaves after a kill and how that
// is removed: userspace_leftovers.h.
std::unique_ptr<Backend> make_userspace_backend(const BackendOptions& options = {});

}  // namespace fabriclab::netem
