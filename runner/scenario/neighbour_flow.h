// Neighbour flows: TCP flows that share the lab network with a scenario's
// job, from its launch until it ends (lab 08's noisy neighbour and the victim
// that only shares its link). Each is the real iperf3 between two ranks'
// namespaces, optionally paced (iperf3 -b); what it got is a `neighbour`
// event (recordings/FORMAT.md) and the result field `NAME_mbps`.
//
// Written in lab.toml as `neighbours = ["noisy r3->r0", "victim r3->r1 rate
// 50mbit"]` (runner/lab/neighbour_flow_spec.h).
//
// Measurement: the client is stopped with SIGINT when the job ends and
// reports the bytes it sent and the seconds it ran (its -J `end.sum_sent`:
// sent_mbps); goodput (mbps) is what the receiver got, from the server's
// one-second intervals (the whole seconds before the stop). The two differ
// by what was in flight, or held at a paused link, when it stopped.
//
// Lifetime: the processes are the ledger's (a killed run's `fabriclab
// cleanup` ends them); stop() ends them, and so does the destructor.
// Errors: the constructor throws std::runtime_error when a rank is not on this machine or iperf3 does not
// listen.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "runner/lab/neighbour_flow_spec.h"
#include "runner/process/process.h"

namespace fabriclab::runner {

class LabNetwork;
class Ledger;

class NeighbourFlows {
 public:
  // Starts every flow; `dir` holds their output. Nothing is left on throw.
  NeighbourFlows(const LabNetwork& network, const std::vector<NeighbourFlowSpec>& flows,
                 const std::string& dir, Ledger* ledger);
  ~NeighbourFlows();
  NeighbourFlows(const NeighbourFlows&) = delete;
  NeighbourFlows& operator=(const NeighbourFlows&) = delete;

  // Stops them and returns one `neighbour` event's fields per flow (without
  // v/ts/event): name, from, to, rate_mbps (null: unpaced), seconds,
  // bytes_sent, mbps (received), sent_mbps, retransmits, rtt_ms and max_rtt_ms (the sender's
  // smoothed round trip, iperf3's once-a-second samples: mean and max); a flow that reported nothing has an
  // `error` and null figures.
  std::vector<nlohmann::json> stop();

 private:
  struct Running {
    NeighbourFlowSpec spec;
    std::string output;         // the client's -J output file
    std::string server_output;  // the server's
    Process server;
    Process client;
  };
  std::vector<Running> running_;
};

}  // namespace fabriclab::runner
