// A lab run in host mode: `fabriclab run NN --hosts A,B[,...] --iface IF` (or
// --hosts-file) on every lab host (doc/vm-pair.md: "Running on two VMs", "More than
// two hosts"). A lab host mode cannot run is refused first (host_mode_fit.h).
// Each host's runner launches its own ranks (no namespaces) and impairs its
// own interface towards/from the other lab hosts only (host_network.h); the
// first host leads:
//
//   lead                                   each follower
//   serve the control store (port P)       connect to it (retrying: start in any order)
//   publish the run: id, seed, lab,        read it; check it is the same lab
//     scenarios ("run")                      and scenarios
//   ---------------- barrier "join": every host is there ----------------
//   for each scenario i:
//   ------------- barrier "s<i>/start" (ranks rendezvous on P+1+i) --------
//     run_scenario() on its own ranks, the same watchdog, plus PeerWatch:
//     a lost host ends the scenario within ~kPeerSilentLimit
//   collect "s<i>/outcome/<h>" from        post its outcome and events
//     every follower, merge, record it       ("s<i>/outcome/<h>")
//   write the recording (run.json mode     keep a local run directory: its
//     "host", hosts, every rank's events)    session, its ranks' logs and events
//   wait for each follower not lost        say "done/<h>" and disconnect (a
//     to say "done/<h>", then stop           finished host is never counted lost)
//     serving the store
//
// A lost host, a store that fails or a Ctrl-C on any host ends the run after
// the current scenario on every host ("run/stop"); the lead still writes the
// recording of what completed. With the netem backend an ImpairmentGuardian
// removes the qdisc from IF if this runner is killed.
#pragma once

#include <string>
#include <vector>

#include "runner/scenario/lab_run.h"

namespace fabriclab::runner::host {

struct HostRunOptions {
  LabRunOptions lab;               // the lab and its scenarios, backend, output, charts
  std::vector<std::string> hosts;  // parse_host_list(): lab addresses, the lead first
  std::string iface;               // this host's lab interface
  int host_index = -1;             // this host's place in `hosts`; -1 = find it by address
  int ranks_per_host = 0;          // 0 = the lab's ranks / hosts
  int port = 29400;                // control store; scenario i's rendezvous on port+1+i
};

// Where this host's part of a run went, for a caller that reads it after
// (`fabriclab bench allreduce --hosts` prints its table from it).
struct HostRunPlace {
  std::string run_dir;  // the lead's recording, or a follower's local run directory
  std::string run_id;   // the lead's run id, the same on every host
  bool lead = false;    // run_dir holds run.json and every host's events
};

// Exit code as run_lab(): 0 when every scenario ran to a result, 1 when one
// failed, was interrupted, or a host was lost. InputError for bad options
// (e.g. ranks that do not divide among the hosts, an unknown interface).
// `lab` as run_lab() takes it: loaded once, by the caller. `place` (may be
// null) is filled once the run directory exists.
int run_lab_on_hosts(const LabDefinition& lab, const HostRunOptions& options,
                     HostRunPlace* place = nullptr);

}  // namespace fabriclab::runner::host
