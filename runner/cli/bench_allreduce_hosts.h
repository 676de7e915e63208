// `fabriclab bench allreduce --hosts A,B --iface IF [--transport roce]`, run
// on every host: the bench in host mode, as a thin front for `fabriclab run
// --hosts`. It writes the one-scenario lab its flags make
// (runner/bench/allreduce_host_lab.h) to a temporary folder, runs it through
// host mode (roster, control store, guardian, ledger, the rxe device on
// --iface for RoCE), then prints the bench's table (or JSON) from that run's
// events: on the lead every rank's, on a follower its own ranks'.
//
// stdout holds the table alone, as the namespace bench's does: the lab run's
// own lines (host mode's roster, the live view, the summary) go to stderr.
// No iperf3 line rate: the table says "not measured" and its busbw/line
// columns are N/A. The recording is kept only with --output (a run
// directory below it, as `fabriclab run` makes); --capture writes each
// host's pcap of --iface into its run directory (needs --output to keep it).
//
// Exit status: host mode's (1 when the scenario did not complete, a host was
// lost), else 1 when #wrong > 0, else 0. InputError (exit 2) for bad flags.
#pragma once

#include <string>

#include "runner/bench/allreduce_bench.h"

namespace fabriclab::cli {

struct HostBenchFlags {
  std::string hosts;       // --hosts A,B[,...]: the lead first
  std::string iface;       // --iface; "" = the one holding this host's address
  int host_index = -1;     // --host-index; -1 = found from the addresses
  int port = 29400;        // --port: the control store; the rendezvous on port+1
  std::string output;      // --output: keep the recording below it; "" = not kept
  bool capture = false;    // --capture
  bool ranks_given = false;  // --ranks given; else one rank per host
};

// Returns the process exit status (see above).
int run_allreduce_bench_on_hosts(const runner::bench::AllreduceBenchOptions& options,
                                 const HostBenchFlags& flags);

}  // namespace fabriclab::cli
