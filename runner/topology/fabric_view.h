// A fabric graph (fabric.h) as a network engineer reads it: the hosts and
// the ranks on each, the switches (bridge or router), the links, and the
// path each pair of ranks takes with the hops traceroute would show
// (fabric_paths.h). What `fabriclab topo LAB` prints. Pure, thread-safe.
#pragma once

#include <string>

#include "runner/topology/fabric.h"

namespace fabriclab::runner {

// Paths are listed for every pair of ranks up to `max_pairs` pairs, then
// summarized.
std::string format_fabric(const FabricGraph& graph, int max_pairs = 28);

}  // namespace fabriclab::runner
