// iperf3, the real client, between two lab namespaces: the TCP rate the
// benchmarks set their figures against (`bench impair`, `bench allreduce`)
// and what one flow sees in a scenario's flow probe (runner/scenario/flow_probe.h).
//
// One run: an iperf3 server in the receiver's namespace bound to its lab
// address, the client in the sender's, `seconds` long, JSON output (-J).
// Both are child processes that are waited for (or terminated at the
// timeout) before the call returns; their output goes to files in `tmp`.
// Units: Gbit/s (10^9 bits per second), what the receiver got.
// Errors: std::runtime_error when iperf3 does not finish in time or prints no
// result (the message holds its output).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/temp_dir.h"

namespace fabriclab::runner {

struct IperfEnds {
  int sender_netns_fd = -1;
  int receiver_netns_fd = -1;
  std::string receiver_addr;  // the server binds here; the client connects to it
};

// One iperf3 TCP run; `port` is the server's (default iperf3's 5201). With
// `bidir` (iperf3 --bidir: one flow each way at once), the mean of the two
// directions' rates.
double iperf_gbps(const IperfEnds& ends, int seconds, const TempDir& tmp, int port = 5201,
                  bool bidir = false);

// What one iperf3 TCP flow saw (its -J output's `end` and `start`): the
// receiver's goodput, the bytes the sender sent, the segments it
// retransmitted and its MSS.
struct IperfFlow {
  double goodput_gbps = 0;       // end.sum_received.bits_per_second / 1e9
  double bytes_sent = 0;         // end.sum_sent.bytes
  int64_t retransmits = 0;       // end.sum_sent.retransmits
  int64_t mss_bytes = 0;         // start.tcp_mss_default
  double seconds = 0;            // end.sum_received.seconds
};

// One iperf3 TCP flow of `seconds` (as iperf_gbps, one direction).
IperfFlow iperf_flow(const IperfEnds& ends, int seconds, const TempDir& tmp, int port = 5201);

// True when a TCP socket listens on `port` in the namespace (IPv4).
bool port_listening(int netns_fd, int port);

// Runs argv in the namespace of `netns_fd`, waits at most `timeout_s`
// seconds and returns what it printed (stdout and stderr, in `out_path`).
std::string run_client(const std::vector<std::string>& argv, int netns_fd,
                       const std::string& out_path, int timeout_s);

}  // namespace fabriclab::runner
