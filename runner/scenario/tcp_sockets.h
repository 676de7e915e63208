// The TCP connections of one network namespace as `ss -ti` shows them: for
// each established IPv4 connection its ends and the kernel's own tcp_info --
// smoothed round-trip time and the segments it retransmitted. Read over
// NETLINK_SOCK_DIAG (inet_diag, libmnl), the interface `ss` itself uses.
//
// A lab uses it as a network engineer uses `ss`: a link that delays what one
// rank sends shows in the round trip of every connection that rank is part
// of (its data, or its ACKs, cross the slow link), and in no other.
//
// The calling thread enters the namespace for the read (common/scoped_netns.h)
// and comes back; netns_fd -1 reads the caller's own namespace.
// Errors: std::runtime_error when the socket cannot be opened or the dump
// fails; counters are for the report, never for control.
// Thread safety: safe from any thread (the namespace switch is per thread).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fabriclab::runner {

struct TcpConnection {
  std::string local;  // "10.77.0.1"
  uint16_t local_port = 0;
  std::string remote;
  uint16_t remote_port = 0;
  double rtt_ms = 0;  // tcpi_rtt: the smoothed round trip
  uint32_t total_retrans = 0;  // tcpi_total_retrans: segments retransmitted
  // The retransmission timer now: its timeout (tcpi_rto), how many times it
  // has doubled since the last ACK that moved (tcpi_backoff), and the
  // timeouts in a row without one (tcpi_retransmits) -- 0 on a healthy link.
  double rto_ms = 0;
  uint32_t backoff = 0;
  uint32_t retransmits = 0;
};

std::vector<TcpConnection> read_tcp_connections(int netns_fd);

}  // namespace fabriclab::runner
