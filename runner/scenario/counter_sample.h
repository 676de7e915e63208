// One sample of the counters a scenario records about once a second: the
// `counters` event of metrics.jsonl (recordings/FORMAT.md defines each field).
//
//   retransmits  TCP segments retransmitted, summed over the ranks' namespaces
//   spurious_retransmits  of those, the ones the receiver had already
//                (D-SACK: netns_counters.h), summed the same way
//   drops        packets the scenario's impairment dropped
//   links        per lab link, its counters at the one end the LabNetwork
//                names (CounterSource): tx = sent from that end, rx = arrived
//                at it, as `ip -s link` shows them there
//   link_bytes   over links, tx_bytes + rx_bytes: each byte that crossed a
//                link counted once per link it crossed
//   ce_packets   packets that arrived with CE set, ce_echoed segments the
//                senders learned were CE-marked (netns_counters.h), summed
//                over the ranks' namespaces
//   queues       per queued switch port, its counters (link_setting.h's
//                sample(): the `queue` setting), by the rank it leads to
//   ranks        per rank: the TCP segments its namespace retransmitted, and
//                the median smoothed round trip of its connections to other
//                ranks now (tcp_sockets.h, what `ss -ti` shows) -- a slow
//                link shows in every connection of the rank that sends on it
//
// A sample read from the kernel is cumulative; sample_since() makes it
// "since the scenario started". Thread safety: plain data and functions; the
// read is safe from any thread (netns_counters.h).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <nlohmann/json.hpp>
#include <string>

#include "common/proc_net_dev.h"

namespace fabriclab::runner {

class LabNetwork;

struct LinkCounters {
  std::string end;  // "fl-3fa2c1-r0/eth0"
  DeviceCounters counters;
  bool uplink = false;  // between two routers (CounterSource::uplink)
};

struct RankTcp {
  uint64_t retransmits = 0;
  uint64_t ce_packets = 0;
  uint64_t ce_echoed = 0;
  std::optional<double> rtt_ms;  // median over its lab connections; none open: nullopt
  int connections = 0;
};

struct CounterSample {
  uint64_t retransmits = 0;
  uint64_t spurious_retransmits = 0;
  uint64_t drops = 0;
  uint64_t ce_packets = 0;
  uint64_t ce_echoed = 0;
  nlohmann::json queues = nlohmann::json::object();  // taken as given, like drops
  std::map<std::string, LinkCounters> links;  // by link name ("r0-r1")
  std::map<int, RankTcp> ranks;           // by rank

  uint64_t link_bytes() const;
};

// Reads every counter source of `network` now; `drops` is taken as given (the
// impairments count them), as are `queues`. A link whose device cannot be
// read is left out.
CounterSample read_counter_sample(const LabNetwork& network, uint64_t drops,
                                  nlohmann::json queues = nlohmann::json::object());

// `now` relative to `baseline`: retransmits and each link's counters
// subtracted (common/proc_net_dev.h: never below 0); a link missing from
// either sample is left out. Drops are `now`'s: the impairment starts
// counting when the scenario applies it.
CounterSample sample_since(const CounterSample& now, const CounterSample& baseline);

// The fields of a `counters` event: retransmits, spurious_retransmits, drops, link_bytes, links
// ({"r0-r1": {"end": ..., "tx_bytes": ..., "rx_bytes": ..., "tx_packets":
// ..., "rx_packets": ...}}), ranks ({"r0": {"retransmits": ..., "rtt_ms":
// ... or null, "connections": ..., "ce_packets": ..., "ce_echoed": ...}}),
// ce_packets, ce_echoed, and queues when a queue is in force.
nlohmann::json counters_event_fields(const CounterSample& sample);

}  // namespace fabriclab::runner
