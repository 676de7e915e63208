// Counters a network engineer watches, read from inside a lab namespace:
// TCP retransmissions (/proc/net/snmp, Tcp RetransSegs) and one device's
// bytes and packets per direction (/proc/net/dev, common/proc_net_dev.h: the
// numbers `ip -s link` shows). The calling thread enters the namespace for
// the read (common/scoped_netns.h) and comes back; netns_fd -1 reads the
// runner's own namespace (host mode).
//
// Thread safety: safe from any thread (the namespace switch is per thread).
// Errors: a counter that cannot be read (a namespace being torn down) is 0,
// or nullopt for a device; counters are for the live view and the report,
// never for control.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "common/proc_net_dev.h"

namespace fabriclab::runner {

uint64_t read_tcp_retransmits(int netns_fd);
// `device`'s counters in the namespace, cumulative since it was created.
std::optional<DeviceCounters> read_device_counters_in(int netns_fd, const std::string& device);

}  // namespace fabriclab::runner
