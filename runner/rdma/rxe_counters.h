// An RDMA port's hardware counters (for rxe: the transport's own packet
// counts, /sys/class/infiniband/DEV/ports/1/hw_counters/*) read before and
// after a scenario, so that go-back-N is a measured quantity: what each
// side sent and received, the NAKs and retries (doc/roce.md, doc/metrics.md).
//
// `lifespan` is the counters' refresh interval in ms, not a counter: left out.
// Errors: none thrown; a device or port that is not there reads as empty.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace fabriclab::runner::rdma {

using RdmaCounters = std::map<std::string, uint64_t>;

// Every counter of `device`'s port `port`; empty when it has none.
RdmaCounters read_rdma_counters(const std::string& device, int port = 1,
                                const std::string& sysfs = "/sys/class/infiniband");

// after - before, counter by counter (a counter missing before counts from 0;
// one that went backwards -- the device was recreated -- reads 0).
RdmaCounters rdma_counters_since(const RdmaCounters& after, const RdmaCounters& before);

}  // namespace fabriclab::runner::rdma
