// The IP plan of a fabric with routers (fabric.h: switches with `routed`):
// a ToR -- a router with hosts on it -- bridges its hosts into one /24 and
// is their gateway; routers are joined by point-to-point /31 links; each
// router reaches every other ToR's /24 over all its shortest paths at once
// (one ECMP route), and each host sends everything through its ToR. As a
// leaf-spine fabric is usually run: L2 within the rack, L3 above it.
//
// Addresses: the hosts of the K-th ToR (K = 1, 2, ... in graph order) are
// 10.77.K.(rank + 1)/24, its gateway 10.77.K.254; the i-th router link is
// 10.78.i.0/31 (its `a` end) and 10.78.i.1 (its `b` end). A router link's
// device is "to-<peer>" in each namespace.
//
// Pure: Topology (topology.h) applies the plan. A graph without routers has
// an empty plan. Thread-safe.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "runner/topology/fabric.h"

namespace fabriclab::runner {

struct RouterLinkPlan {
  std::string name;              // "tor0-spine1"
  std::string a, b;              // router names
  std::string a_device, b_device;  // "to-spine1", "to-tor0"
  std::string a_address, b_address;  // /31 ends
};

struct NextHopPlan {
  std::string gateway;
  std::string device;
};

struct RoutePlan {
  std::string node;         // the router (or host) it is added in
  std::string destination;  // "10.77.2.0"; "0.0.0.0" for a host's default
  int prefix_len = 24;
  std::vector<NextHopPlan> hops;  // several: ECMP
};

struct RoutedPlan {
  std::map<std::string, std::string> host_address;  // host -> its lab address
  std::map<std::string, std::string> tor_gateway;   // ToR -> its bridge's address
  std::vector<RouterLinkPlan> router_links;
  std::vector<RoutePlan> routes;
  bool empty() const { return tor_gateway.empty() && router_links.empty(); }
};

// std::invalid_argument for a graph it cannot address (a host on a router
// and on something else, more than 253 ToRs or router links).
RoutedPlan plan_routed_fabric(const FabricGraph& graph);

// A router link that fails (`link_fault` on an uplink, runner/scenario/
// uplink_fault.h): its upper end (`failed.b`, the spine's port) goes down,
// so the lower end (the ToR's) loses its carrier. Once the routers detect
// it, each ToR whose route to some rack would still use the failed link
// replaces it with `withdraw` (the same route over the links left: the
// ECMP route loses a next hop); when the link is back, `restore` puts the
// full plan's routes back (those same ToR routes, and the spine's: taking
// its port down flushed the kernel's routes through it). Addresses as in
// the full plan. std::invalid_argument for a name that is no router link.
struct UplinkReroute {
  RouterLinkPlan failed;
  std::vector<RoutePlan> withdraw;
  std::vector<RoutePlan> restore;
};
UplinkReroute plan_uplink_reroute(const FabricGraph& graph, const std::string& link_name);

}  // namespace fabriclab::runner
