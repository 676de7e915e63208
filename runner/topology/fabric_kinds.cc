// The table of fabric kinds (fabric.h). Add a kind here.
#include <stdexcept>

#include "runner/topology/fabric.h"

namespace fabriclab::runner {

namespace {

FabricNode host(int rank) { return {"r" + std::to_string(rank), false, rank}; }

FabricGraph single(int) { return {"single", {host(0)}, {}, {}}; }

FabricGraph pair(int) { return {"pair", {host(0), host(1)}, {}, {{"r0-r1", "r0", "r1"}}}; }

FabricGraph one_switch(int ranks) {
  FabricGraph graph{"switch", {}, {{"sw", true, -1}}, {}};
  for (int i = 0; i < ranks; ++i) {
    graph.hosts.push_back(host(i));
    graph.links.push_back({graph.hosts.back().name + "-sw", graph.hosts.back().name, "sw"});
  }
  return graph;
}

// Two racks under two spines: ranks 0 .. ceil(N/2)-1 on ToR tor0, the rest
// on tor1; each ToR linked to both spines (routed_fabric.h: L2 in the rack,
// ECMP over the spines above it).
FabricGraph leaf_spine(int ranks) {
  FabricGraph graph{"leaf_spine", {}, {}, {}};
  for (const char* name : {"tor0", "tor1", "spine0", "spine1"})
    graph.switches.push_back({name, true, -1, true});
  const int first_rack = (ranks + 1) / 2;
  for (int i = 0; i < ranks; ++i) {
    graph.hosts.push_back(host(i));
    const std::string tor = i < first_rack ? "tor0" : "tor1";
    graph.links.push_back({graph.hosts.back().name + "-" + tor, graph.hosts.back().name, tor});
  }
  for (const char* tor : {"tor0", "tor1"})
    for (const char* spine : {"spine0", "spine1"})
      graph.links.push_back({std::string(tor) + "-" + spine, tor, spine});
  return graph;
}

struct FabricKind {
  const char* name;
  int min_ranks, max_ranks;
  FabricGraph (*draw)(int ranks);
};

const FabricKind kKinds[] = {
    {"single", 1, 1, single},
    {"pair", 2, 2, pair},
    {"switch", 2, kMaxRanks, one_switch},
    {"leaf_spine", 2, kMaxRanks, leaf_spine},
};

std::string auto_kind(int ranks) { return ranks == 1 ? "single" : ranks == 2 ? "pair" : "switch"; }

}  // namespace

FabricGraph draw_fabric(const std::string& kind, int ranks) {
  const std::string resolved = kind == "auto" ? auto_kind(ranks) : kind;
  for (const FabricKind& k : kKinds) {
    if (resolved != k.name) continue;
    if (ranks < k.min_ranks || ranks > k.max_ranks) {
      throw std::invalid_argument("fabric '" + resolved + "' holds " +
                                  std::to_string(k.min_ranks) +
                                  (k.min_ranks == k.max_ranks
                                       ? ""
                                       : "-" + std::to_string(k.max_ranks)) +
                                  " ranks, not " + std::to_string(ranks));
    }
    return k.draw(ranks);
  }
  std::string known;
  for (const std::string& name : fabric_kinds()) known += (known.empty() ? "" : ", ") + name;
  throw std::invalid_argument("unknown fabric kind '" + kind + "' (known: " + known + ")");
}

std::vector<std::string> fabric_kinds() {
  std::vector<std::string> names = {"auto"};
  for (const FabricKind& k : kKinds) names.push_back(k.name);
  return names;
}

}  // namespace fabriclab::runner
