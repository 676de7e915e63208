// iperf3, the real client, between two lab namespaces: the TCP rate the
// benchmarks set their figures against (`bench impair`, `bench allreduce`).
//
// One run: an iperf3 server in the receiver's namespace bound to its lab
// address, the client in the sender's, `seconds` long, JSON output (-J).
// Both are child processes that are waited for (or terminated at the
// timeout) before the call returns; their output goes to files in `tmp`.
// Units: Gbit/s (10^9 bits per second), what the receiver got.
// Errors: std::runtime_error when iperf3 does not finish in time or prints no
// result (the message holds its output).
#pragma once

#include <string>
#include <vector>

#include "common/temp_dir.h"

namespace fabriclab::runner::bench {

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

// Runs argv in the namespace of `netns_fd`, waits at most `timeout_s`
// seconds and returns what it printed (stdout and stderr, in `out_path`).
std::string run_client(const std::vector<std::string>& argv, int netns_fd,
                       const std::string& out_path, int timeout_s);

}  // namespace fabriclab::runner::bench
