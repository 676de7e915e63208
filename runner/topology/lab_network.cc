#include "runner/topology/lab_network.h"

#include "runner/topology/topology.h"

namespace fabriclab::runner {

netem::Target target_on(const Endpoint& device, std::vector<std::string> peers,
                        netem::Direction direction) {
  netem::Target target;
  target.netns_fd = device.netns_fd;
  target.netns = device.netns;
  target.device = device.device;
  target.peers = std::move(peers);
  target.direction = direction;
  return target;
}

int NamespaceNetwork::world_size() const { return topology_.size(); }

std::string NamespaceNetwork::master_addr() const { return topology_.master_addr(); }

std::vector<LocalRank> NamespaceNetwork::local_ranks() const {
  std::vector<LocalRank> ranks;
  for (const RankNetwork& net : topology_.ranks()) {
    // Each namespace is a "machine" of its own, but torchrun on one node
    // numbers local ranks across the node: keep what namespace mode always did.
    ranks.push_back({net.rank, net.rank, topology_.size(), net.netns_fd, net.netns, net.ipv4});
  }
  return ranks;
}

// A link "rN" is rank N's egress. The netem backend impairs it there; the
// userspace backend impairs the same packets as they arrive at every other
// rank (netem::Direction says why), one impairment per receiving rank.
std::vector<netem::Target> NamespaceNetwork::impairment_targets(const std::vector<int>& link_ranks,
                                                                netem::Direction direction) const {
  std::vector<netem::Target> targets;
  if (direction == netem::Direction::kEgress) {
    for (int rank : link_ranks)
      targets.push_back(target_on(topology_.rank(rank).egress, {}, direction));
    return targets;
  }
  for (int receiver = 0; receiver < topology_.size(); ++receiver) {
    std::vector<std::string> senders;
    for (int rank : link_ranks)
      if (rank != receiver) senders.push_back(topology_.rank(rank).ipv4);
    // rank(i).egress is rank i's own eth0: where its packets leave and arrive.
    if (!senders.empty())
      targets.push_back(target_on(topology_.rank(receiver).egress, senders, direction));
  }
  return targets;
}

std::vector<CounterSource> NamespaceNetwork::counter_sources() const {
  std::vector<CounterSource> sources;
  for (const RankNetwork& rank : topology_.ranks()) {
    CounterSource source{rank.netns_fd, "", "", ""};
    // A link's `a` side is a rank's eth0: the pair's link is read at r0 only.
    for (const Link& link : topology_.links()) {
      if (link.a.netns == rank.netns)
        source = {rank.netns_fd, link.a.device, link.name, link.a.describe()};
    }
    sources.push_back(std::move(source));
  }
  // A router link is read at its lower end: tx = up (ToR to spine), rx = down.
  for (const Link& link : topology_.router_links())
    sources.push_back({link.a.netns_fd, link.a.device, link.name, link.a.describe(), true});
  return sources;
}

std::optional<SwitchPlace> NamespaceNetwork::switch_place() const {
  if (!topology_.has_switch()) return std::nullopt;
  SwitchPlace place{topology_.switch_netns_fd(), topology_.switch_netns(), {}};
  for (const RankNetwork& rank : topology_.ranks()) place.rank_addresses.push_back(rank.ipv4);
  return place;
}

// A rank's link is the Link whose `a` side is in its namespace; `b` is the
// switch's port (a pair's `b` is the other rank: load_lab() refuses a fault there).
std::vector<LinkFarEnd> NamespaceNetwork::link_far_ends(const std::vector<int>& ranks) const {
  std::vector<LinkFarEnd> ends;
  for (int rank : ranks) {
    for (const Link& link : topology_.links()) {
      if (link.a.netns == topology_.rank(rank).netns)
        ends.push_back({link.name, link.b.netns_fd, link.b.netns, link.b.device});
    }
  }
  return ends;
}

std::optional<UplinkFaultPlace> NamespaceNetwork::uplink_fault_place(const std::string& name) const {
  UplinkReroute reroute;
  try {
    reroute = topology_.uplink_reroute(name);
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
  const auto change = [&](const RoutePlan& route) {
    const NetworkNamespace& ns = topology_.switch_namespace_of(route.node);
    RouteChange c{route.node, ns.fd(), ns.name(), route.destination, route.prefix_len, {}};
    for (const NextHopPlan& hop : route.hops) c.hops.push_back({hop.gateway, hop.device});
    return c;
  };
  const NetworkNamespace& upper = topology_.switch_namespace_of(reroute.failed.b);
  UplinkFaultPlace place{{name, upper.fd(), upper.name(), reroute.failed.b_device}, {}, {}};
  for (const RoutePlan& route : reroute.withdraw) place.withdraw.push_back(change(route));
  for (const RoutePlan& route : reroute.restore) place.restore.push_back(change(route));
  return place;
}

}  // namespace fabriclab::runner
