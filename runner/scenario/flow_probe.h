// A scenario's flow probe: what one TCP flow sees on the scenario's impaired
// link, measured right after the job while the link settings are still on
// (a lab sets `flow_probe_s`, labs/SCHEMA.md). One iperf3 flow from the
// first rank whose link is impaired (rank 0 when none is) to the next rank
// of the ring -- the hop that rank's gradient chunks take -- for `seconds`.
//
// The result is a `flow` event (recordings/FORMAT.md): goodput, bytes sent,
// segments retransmitted, MSS, and the retransmitted share = retransmits x
// MSS / bytes sent (the share of the flow's bytes TCP sent twice).
// Errors: std::runtime_error when iperf3 fails, a rank is not on this
// machine, or both share one host (host mode, placement: they would talk over
// its loopback); the caller skips the probe then.
#pragma once

#include <nlohmann/json.hpp>

#include <vector>

namespace fabriclab::runner {

class LabNetwork;

// The ranks of the probe: {from, to}, with to = (from + 1) mod world.
std::pair<int, int> flow_probe_ranks(const std::vector<int>& impaired_ranks, int world);

// Runs the probe and returns the `flow` event's fields (without v/ts/event).
nlohmann::json run_flow_probe(const LabNetwork& network, int from, int to, int seconds);

}  // namespace fabriclab::runner
