// The path between two hosts of a fabric graph (fabric.h): the nodes a
// packet crosses and the hops `traceroute` would list -- one per IP router
// on the way, plus the destination; bridges are layer 2 and not counted.
// What `fabriclab topo` prints, and what its --check compares with
// traceroute run inside the lab's namespaces.
//
// Paths are shortest in links (breadth-first; ties broken by the order the
// graph lists its links, so the result is deterministic). Pure functions,
// thread-safe.
#pragma once

#include <string>
#include <vector>

#include "runner/topology/fabric.h"

namespace fabriclab::runner {

struct FabricPath {
  std::vector<std::string> nodes;  // from the source host to the destination, both included
  int routers = 0;                 // routed switches on the way
  int ip_hops() const { return routers + 1; }  // traceroute's lines
  int switches = 0;                // every switch on the way, bridge or router
};

// std::invalid_argument when a name is not a host of `graph` or no path joins them.
FabricPath fabric_path(const FabricGraph& graph, const std::string& from, const std::string& to);

// The host a rank is on.
std::string host_of_rank(const FabricGraph& graph, int rank);

}  // namespace fabriclab::runner
