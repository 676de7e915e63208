// Fabric kinds: the shape of a lab network as a graph of named hosts,
// switches and links, looked up by the name a lab.toml gives in
// `[topology] kind` (labs/SCHEMA.md, "Topology"). Pure data: Topology
// (topology.h) builds any graph drawn here into namespaces and veth links.
//
//   single  1 rank:  host r0, no links (the rank talks to itself over lo)
//   pair    2 ranks: hosts r0, r1 and one link "r0-r1" between them
//   switch  N ranks: hosts r0..rN-1, switch "sw" (a bridge), links "rI-sw"
//   leaf_spine  N ranks: the first half on router tor0, the rest on tor1,
//           both ToRs linked to routers spine0 and spine1 (routed_fabric.h)
//   auto    single, pair or switch by the number of ranks (the default)
//
// A new kind is one entry in fabric_kinds.cc drawing its graph. Hosts carry
// one rank each (host index = rank) and, for now, at most one link: the
// rank's lab interface (routed hosts with several links come with leaf-spine).
// Thread safety: pure functions over immutable tables.
#pragma once

#include <string>
#include <vector>

namespace fabriclab::runner {

struct FabricNode {
  std::string name;  // [a-z0-9]+: "r0", "sw"; namespace fl-<run id>-<name>
  bool is_switch = false;
  int rank = -1;     // hosts: the rank on it
  // Switches: true for an IP router (each one a hop traceroute shows),
  // false for a bridge (layer 2: invisible to traceroute). Every kind so
  // far has bridges only.
  bool routed = false;
};

// A point-to-point link; `a` is a host, `b` a host or a switch -- or both
// are routers (a ToR's uplink to a spine).
struct FabricLink {
  std::string name;  // "r0-r1", "r2-sw"
  std::string a, b;  // node names
};

struct FabricGraph {
  std::string kind;
  std::vector<FabricNode> hosts;     // by rank
  std::vector<FabricNode> switches;
  std::vector<FabricLink> links;
};

constexpr int kMaxRanks = 64;

// The graph of fabric `kind` ("auto" resolved) for `ranks` ranks.
// std::invalid_argument for an unknown kind (naming the known ones) or a
// rank count the kind cannot hold.
FabricGraph draw_fabric(const std::string& kind, int ranks);
// Every kind a lab may name, "auto" first.
std::vector<std::string> fabric_kinds();

}  // namespace fabriclab::runner
