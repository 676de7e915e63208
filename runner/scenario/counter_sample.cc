#include "runner/scenario/counter_sample.h"

#include "runner/scenario/netns_counters.h"
#include "runner/topology/lab_network.h"

namespace fabriclab::runner {

uint64_t CounterSample::link_bytes() const {
  uint64_t bytes = 0;
  for (const auto& [name, link] : links) bytes += link.counters.tx_bytes + link.counters.rx_bytes;
  return bytes;
}

CounterSample read_counter_sample(const LabNetwork& network, uint64_t drops) {
  CounterSample sample;
  sample.drops = drops;
  for (const CounterSource& source : network.counter_sources()) {
    sample.retransmits += read_tcp_retransmits(source.netns_fd);
    if (source.device.empty() || source.link.empty()) continue;
    if (auto counters = read_device_counters_in(source.netns_fd, source.device))
      sample.links[source.link] = {source.end, *counters};
  }
  return sample;
}

CounterSample sample_since(const CounterSample& now, const CounterSample& baseline) {
  CounterSample since;
  since.retransmits =
      now.retransmits >= baseline.retransmits ? now.retransmits - baseline.retransmits : 0;
  since.drops = now.drops;
  for (const auto& [name, link] : now.links) {
    const auto before = baseline.links.find(name);
    if (before == baseline.links.end()) continue;
    since.links[name] = {link.end, counters_since(link.counters, before->second.counters)};
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
                   {"rx_packets", link.counters.rx_packets}};
  }
  return {{"retransmits", sample.retransmits},
          {"drops", sample.drops},
          {"link_bytes", sample.link_bytes()},
          {"links", std::move(links)}};
}

}  // namespace fabriclab::runner
