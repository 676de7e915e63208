#include "runner/host/host_network.h"

#include <set>

namespace fabriclab::runner::host {

std::vector<LocalRank> HostNetwork::local_ranks() const {
  std::vector<LocalRank> ranks;
  const int k = roster_.ranks_per_host;
  for (int local = 0; local < k; ++local) {
    ranks.push_back(
        {roster_.index * k + local, local, k, -1, "host " + roster_.self(), roster_.self()});
  }
  return ranks;
}

std::vector<CounterSource> HostNetwork::counter_sources() const {
  return {{-1, iface_, roster_.self() + "-lab", roster_.self() + "/" + iface_}};
}

std::vector<netem::Target> HostNetwork::impairment_targets(const std::vector<int>& link_ranks,
                                                           netem::Direction direction) const {
  std::set<int> sending_hosts;
  for (int rank : link_ranks) sending_hosts.insert(roster_.host_of_rank(rank));
  netem::Target target;
  target.device = iface_;
  target.direction = direction;
  const int self = roster_.index;
  if (direction == netem::Direction::kEgress) {
    if (sending_hosts.count(self) == 0) return {};
    for (int h = 0; h < static_cast<int>(roster_.hosts.size()); ++h)
      if (h != self) target.peers.push_back(roster_.hosts[static_cast<size_t>(h)]);
  } else {
    for (int h : sending_hosts)
      if (h != self) target.peers.push_back(roster_.hosts[static_cast<size_t>(h)]);
  }
  if (target.peers.empty()) return {};
  return {target};
}

}  // namespace fabriclab::runner::host
