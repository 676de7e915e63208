#include "runner/topology/routed_fabric.h"

#include <algorithm>
#include <limits>
#include <queue>
#include <stdexcept>

namespace fabriclab::runner {
namespace {

bool is_router(const FabricGraph& graph, const std::string& name) {
  for (const FabricNode& sw : graph.switches)
    if (sw.name == name) return sw.routed;
  return false;
}

// Hops from every router to `target` over router links only.
std::map<std::string, int> distances_to(const std::vector<RouterLinkPlan>& links,
                                        const std::string& target) {
  std::map<std::string, int> dist = {{target, 0}};
  std::queue<std::string> frontier;
  frontier.push(target);
  while (!frontier.empty()) {
    const std::string here = frontier.front();
    frontier.pop();
    for (const RouterLinkPlan& link : links) {
      const std::string next = link.a == here ? link.b : link.b == here ? link.a : "";
      if (next.empty() || dist.count(next)) continue;
      dist[next] = dist[here] + 1;
      frontier.push(next);
    }
  }
  return dist;
}

// Every router's route to every ToR's subnet it is not on, over `links`:
// all the neighbours one hop closer to that ToR (equal cost: one ECMP route).
std::vector<RoutePlan> router_routes(const std::map<std::string, std::string>& subnet_of,
                                     const std::vector<std::string>& routers,
                                     const std::vector<RouterLinkPlan>& links) {
  std::vector<RoutePlan> routes;
  for (const auto& [tor, subnet] : subnet_of) {
    const std::map<std::string, int> dist = distances_to(links, tor);
    for (const std::string& router : routers) {
      if (router == tor || !dist.count(router)) continue;
      RoutePlan route{router, subnet, 24, {}};
      for (const RouterLinkPlan& link : links) {
        const bool from_a = link.a == router;
        if (!from_a && link.b != router) continue;
        const std::string& peer = from_a ? link.b : link.a;
        const auto d = dist.find(peer);
        if (d == dist.end() || d->second != dist.at(router) - 1) continue;
        route.hops.push_back(from_a ? NextHopPlan{link.b_address, link.a_device}
                                    : NextHopPlan{link.a_address, link.b_device});
      }
      routes.push_back(route);
    }
  }
  return routes;
}

std::vector<std::string> routers_of(const FabricGraph& graph) {
  std::vector<std::string> routers;
  for (const FabricNode& sw : graph.switches)
    if (sw.routed) routers.push_back(sw.name);
  return routers;
}

bool same_hops(const RoutePlan& a, const RoutePlan& b) {
  if (a.hops.size() != b.hops.size()) return false;
  for (size_t i = 0; i < a.hops.size(); ++i)
    if (a.hops[i].gateway != b.hops[i].gateway || a.hops[i].device != b.hops[i].device) return false;
  return true;
}

}  // namespace

RoutedPlan plan_routed_fabric(const FabricGraph& graph) {
  RoutedPlan plan;
  std::vector<std::string> tors;  // in graph order
  for (const FabricNode& sw : graph.switches) {
    if (!sw.routed) continue;
    for (const FabricLink& link : graph.links)
      if (link.b == sw.name && !is_router(graph, link.a) &&
          std::find(tors.begin(), tors.end(), sw.name) == tors.end())
        tors.push_back(sw.name);
  }
  if (tors.size() > 253) throw std::invalid_argument("more than 253 ToRs");
  std::map<std::string, std::string> subnet_of;  // ToR -> "10.77.K.0"
  for (size_t k = 0; k < tors.size(); ++k) {
    const std::string base = "10.77." + std::to_string(k + 1) + ".";
    subnet_of[tors[k]] = base + "0";
    plan.tor_gateway[tors[k]] = base + "254";
  }
  for (const FabricLink& link : graph.links) {
    if (!is_router(graph, link.b)) continue;
    if (is_router(graph, link.a)) {
      const size_t i = plan.router_links.size();
      if (i > 253) throw std::invalid_argument("more than 254 router links");
      const std::string base = "10.78." + std::to_string(i) + ".";
      plan.router_links.push_back(
          {link.name, link.a, link.b, "to-" + link.b, "to-" + link.a, base + "0", base + "1"});
      continue;
    }
    for (const FabricNode& host : graph.hosts) {
      if (host.name != link.a) continue;
      const std::string& subnet = subnet_of.at(link.b);
      plan.host_address[host.name] =
          subnet.substr(0, subnet.size() - 1) + std::to_string(host.rank + 1);
      plan.routes.push_back({host.name, "0.0.0.0", 0, {{plan.tor_gateway[link.b], "eth0"}}});
    }
  }
  for (RoutePlan& route : router_routes(subnet_of, routers_of(graph), plan.router_links))
    plan.routes.push_back(std::move(route));
  return plan;
}

UplinkReroute plan_uplink_reroute(const FabricGraph& graph, const std::string& link_name) {
  const RoutedPlan full = plan_routed_fabric(graph);
  std::vector<RouterLinkPlan> left;
  const RouterLinkPlan* failed = nullptr;
  for (const RouterLinkPlan& link : full.router_links) {
    if (link.name == link_name)
      failed = &link;
    else
      left.push_back(link);
  }
  if (!failed) throw std::invalid_argument("no router link '" + link_name + "' in this fabric");
  std::map<std::string, std::string> subnet_of;  // the same addresses as the full plan's
  for (const auto& [tor, gateway] : full.tor_gateway)
    subnet_of[tor] = gateway.substr(0, gateway.rfind('.')) + ".0";
  UplinkReroute reroute;
  reroute.failed = *failed;
  for (const RoutePlan& without : router_routes(subnet_of, routers_of(graph), left)) {
    if (!full.tor_gateway.count(without.node)) continue;  // the ToRs steer; spines keep theirs
    for (const RoutePlan& route : full.routes) {
      if (route.node != without.node || route.destination != without.destination) continue;
      if (same_hops(route, without)) continue;
      reroute.withdraw.push_back(without);
      reroute.restore.push_back(route);
    }
  }
  // Taking the link's device down flushes its router's routes through it: back with the rest.
  for (const RoutePlan& route : full.routes)
    if (route.node == failed->b) reroute.restore.push_back(route);
  return reroute;
}

}  // namespace fabriclab::runner
