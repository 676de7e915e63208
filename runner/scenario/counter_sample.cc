#include "runner/scenario/counter_sample.h"

#include "runner/report/scenario_summary.h"
#include "runner/scenario/netns_counters.h"
#include "runner/scenario/tcp_sockets.h"
#include "runner/topology/lab_network.h"

namespace fabriclab::runner {
namespace {

// The rank's connections to other ranks (its lab address on both ends'
// sides, never to itself): their median round trip now.
RankTcp read_rank_network(const LocalRank& rank) {
  RankTcp network;
  network.retransmits = read_tcp_retransmits(rank.netns_fd);
  const EcnCounters ecn = read_ecn_counters(rank.netns_fd);
  network.ce_packets = ecn.ce_packets;
  network.ce_echoed = ecn.ce_echoed;
  std::vector<double> rtts;
  try {
    for (const TcpConnection& c : read_tcp_connections(rank.netns_fd)) {
      if (c.local != rank.bind_addr || c.remote == rank.bind_addr) continue;
      rtts.push_back(c.rtt_ms);
    }
  } catch (const std::exception&) {
    // A namespace being torn down: no round trips this time.
  }
  network.connections = static_cast<int>(rtts.size());
  if (!rtts.empty()) network.rtt_ms = report::median_of(rtts);
  return network;
}

}  // namespace

uint64_t CounterSample::link_bytes() const {
  uint64_t bytes = 0;
  for (const auto& [name, link] : links) bytes += link.counters.tx_bytes + link.counters.rx_bytes;
  return bytes;
}

CounterSample read_counter_sample(const LabNetwork& network, uint64_t drops, nlohmann::json queues) {
  CounterSample sample;
  sample.drops = drops;
  sample.queues = std::move(queues);
  for (const CounterSource& source : network.counter_sources()) {
    sample.retransmits += read_tcp_retransmits(source.netns_fd);
    sample.spurious_retransmits += read_tcp_spurious_retransmits(source.netns_fd);
    if (source.device.empty() || source.link.empty()) continue;
    if (auto counters = read_device_counters_in(source.netns_fd, source.device))
      sample.links[source.link] = {source.end, *counters, source.uplink};
  }
  for (const LocalRank& rank : network.local_ranks()) {
    sample.ranks[rank.rank] = read_rank_network(rank);
    sample.ce_packets += sample.ranks[rank.rank].ce_packets;
    sample.ce_echoed += sample.ranks[rank.rank].ce_echoed;
  }
  return sample;
}

CounterSample sample_since(const CounterSample& now, const CounterSample& baseline) {
  CounterSample since;
  since.retransmits =
      now.retransmits >= baseline.retransmits ? now.retransmits - baseline.retransmits : 0;
  since.drops = now.drops;
  since.queues = now.queues;
  const auto minus = [](uint64_t a, uint64_t b) { return a >= b ? a - b : 0; };
  since.spurious_retransmits = minus(now.spurious_retransmits, baseline.spurious_retransmits);
  since.ce_packets = minus(now.ce_packets, baseline.ce_packets);
  since.ce_echoed = minus(now.ce_echoed, baseline.ce_echoed);
  for (const auto& [name, link] : now.links) {
    const auto before = baseline.links.find(name);
    if (before == baseline.links.end()) continue;
    since.links[name] = {link.end, counters_since(link.counters, before->second.counters), link.uplink};
  }
  for (const auto& [rank, now_rank] : now.ranks) {
    RankTcp r = now_rank;  // round trips are a reading now, not a count
    const auto before = baseline.ranks.find(rank);
    const uint64_t base = before == baseline.ranks.end() ? 0 : before->second.retransmits;
    r.retransmits = minus(now_rank.retransmits, base);
    if (before != baseline.ranks.end()) {
      r.ce_packets = minus(now_rank.ce_packets, before->second.ce_packets);
      r.ce_echoed = minus(now_rank.ce_echoed, before->second.ce_echoed);
    }
    since.ranks[rank] = r;
  }
  return since;
}

nlohmann::json counters_event_fields(const CounterSample& sample) {
  nlohmann::json links = nlohmann::json::object();
  for (const auto& [name, link] : sample.links) {
    links[name] = {{"end", link.end},
                   {"tx_bytes", link.counters.tx_bytes},
                   {"rx_bytes", link.counters.rx_bytes},
                   {"tx_packets", link.counters.tx_packets},
                   {"rx_packets", link.counters.rx_packets},
                   {"tx_dropped", link.counters.tx_dropped},
                   {"rx_dropped", link.counters.rx_dropped}};
    if (link.uplink) links[name]["uplink"] = true;
  }
  nlohmann::json ranks = nlohmann::json::object();
  for (const auto& [rank, r] : sample.ranks) {
    ranks["r" + std::to_string(rank)] = {
        {"retransmits", r.retransmits},
        {"rtt_ms", r.rtt_ms ? nlohmann::json(*r.rtt_ms) : nlohmann::json()},
        {"connections", r.connections},
        {"ce_packets", r.ce_packets},
        {"ce_echoed", r.ce_echoed}};
  }
  nlohmann::json fields = {{"retransmits", sample.retransmits},
                           {"spurious_retransmits", sample.spurious_retransmits},
                           {"drops", sample.drops},
                           {"link_bytes", sample.link_bytes()},
                           {"ce_packets", sample.ce_packets},
                           {"ce_echoed", sample.ce_echoed},
                           {"links", std::move(links)},
                           {"ranks", std::move(ranks)}};
  if (!sample.queues.empty()) fields["queues"] = sample.queues;
  return fields;
}

}  // namespace fabriclab::runner
