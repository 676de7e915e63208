// Counters a network engineer watches, read from inside a lab namespace:
// TCP retransmissions (/proc/net/snmp, Tcp RetransSegs), ECN counters and one device's
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

// Retransmitted segments the receiver already had, as it said with a D-SACK
// (RFC 2883; TcpExt TCPDSACKRecvSegs): a tail-loss probe or a timer that
// fired before the ACK came back, not a loss. On a clean lab link these are
// all of the retransmissions (lab 08's README: a loaded CPU delays the ACK
// of a message's last segment past the probe timeout).
uint64_t read_tcp_spurious_retransmits(int netns_fd);

// ECN as the namespace's kernel counts it (nstat's names): packets that
// arrived with CE set (IpExtInCEPkts, at the receiver), and segments
// acknowledged by ACKs carrying the echo, ECE (TcpExtTCPDeliveredCE, at the
// sender: what its congestion control answers; classic ECN echoes until the
// sender's CWR, so one mark covers several segments).
struct EcnCounters {
  uint64_t ce_packets = 0;
  uint64_t ce_echoed = 0;
};
EcnCounters read_ecn_counters(int netns_fd);

// One counter of /proc/net/`file` ("snmp", "netstat") in `section` ("Tcp",
// "TcpExt", "IpExt") by its name; 0 when absent.
uint64_t read_stat_counter(int netns_fd, const std::string& file, const std::string& section,
                           const std::string& name);
// `device`'s counters in the namespace, cumulative since it was created.
std::optional<DeviceCounters> read_device_counters_in(int netns_fd, const std::string& device);

}  // namespace fabriclab::runner
