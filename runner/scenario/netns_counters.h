// Counters a network engineer watches, read from inside a lab namespace:
// TCP retransmissions (/proc/net/snmp, Tcp RetransSegs) and bytes through a
// device (/proc/net/dev). The calling thread enters the namespace for the
// read (common/scoped_netns.h) and comes back.
//
// Thread safety: safe from any thread (the namespace switch is per thread).
// Errors: returns 0 for counters that cannot be read (a namespace being torn
// down); counters are for the live view and the report, never for control.
#pragma once

#include <cstdint>
#include <string>

namespace fabriclab::runner {

uint64_t read_tcp_retransmits(int netns_fd);
// rx + tx bytes of `device` in the namespace.
uint64_t read_device_bytes(int netns_fd, const std::string& device);

}  // namespace fabriclab::runner
