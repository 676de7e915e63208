// run.json's `rdma` of a scenario: the `rdma_counters` events of its hosts
// (one per host, scenario_runner.h) summed, and go-back-N's price derived
// from them (recordings/FORMAT.md, "rdma"):
//
//   sent_pkts, rcvd_pkts   summed over the hosts: every RoCE packet, data,
//                          ACKs and NAKs alike, sent or received by rxe
//   lost_pkts              sent_pkts - rcvd_pkts: packets one host sent that
//                          the other never received (the link dropped them;
//                          exact when the hosts carry no other RoCE traffic)
//   naks, ack_timeouts     rcvd_seq_err (NAKs for a PSN gap, received by the
//                          requester) and completer_retry_err (retries after
//                          the ACK timeout), summed
//   resent_pkts            sent_pkts - the baseline scenario's sent_pkts
//                          (the same workload on a clean link: the packets
//                          the data needs); absent without such a baseline
//   resent_per_lost        resent_pkts / lost_pkts: go-back-N resends every
//                          packet after a hole, TCP with SACK about one
//
// Returns null when the scenario has no `rdma_counters` event.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

namespace fabriclab::runner {

// `baseline`: the baseline scenario's own summary (null: none).
nlohmann::json rdma_summary(const std::vector<nlohmann::json>& events,
                            const nlohmann::json& baseline);

}  // namespace fabriclab::runner
