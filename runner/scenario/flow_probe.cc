#include "runner/scenario/flow_probe.h"

#include <stdexcept>
#include <string>

#include "common/temp_dir.h"
#include "runner/process/iperf_client.h"
#include "runner/topology/lab_network.h"

namespace fabriclab::runner {

std::pair<int, int> flow_probe_ranks(const std::vector<int>& impaired_ranks, int world) {
  const int from = impaired_ranks.empty() ? 0 : impaired_ranks.front();
  return {from, world > 1 ? (from + 1) % world : from};
}

nlohmann::json run_flow_probe(const LabNetwork& network, int from, int to, int seconds) {
  IperfEnds ends;
  bool have_from = false, have_to = false;
  for (const LocalRank& local : network.local_ranks()) {
    if (local.rank == from) {
      ends.sender_netns_fd = local.netns_fd;
      have_from = true;
    }
    if (local.rank == to) {
      ends.receiver_netns_fd = local.netns_fd;
      ends.receiver_addr = local.bind_addr;
      have_to = true;
    }
  }
  if (!have_from || !have_to)
    throw std::runtime_error("flow probe: ranks " + std::to_string(from) + " and " +
                             std::to_string(to) + " are not both on this machine");
  // Two ranks of one host (host mode's --ranks-per-host, a placement) would
  // measure its loopback, never the impaired link.
  if (ends.sender_netns_fd == ends.receiver_netns_fd)
    throw std::runtime_error("flow probe: ranks " + std::to_string(from) + " and " +
                             std::to_string(to) +
                             " share one host, whose loopback is not the impaired link");
  const TempDir tmp("fabriclab-flow");
  const IperfFlow flow = iperf_flow(ends, seconds, tmp);
  const double share =
      flow.bytes_sent > 0 ? static_cast<double>(flow.retransmits * flow.mss_bytes) / flow.bytes_sent
                          : 0.0;
  return {{"from", "r" + std::to_string(from)},
          {"to", "r" + std::to_string(to)},
          {"seconds", flow.seconds},
          {"goodput_gbps", flow.goodput_gbps},
          {"bytes_sent", flow.bytes_sent},
          {"retransmits", flow.retransmits},
          {"mss_bytes", flow.mss_bytes},
          {"retx_share", share}};
}

}  // namespace fabriclab::runner
