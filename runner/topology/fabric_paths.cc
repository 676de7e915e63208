#include "runner/topology/fabric_paths.h"

#include <map>
#include <queue>
#include <stdexcept>

namespace fabriclab::runner {
namespace {

const FabricNode* node_named(const FabricGraph& graph, const std::string& name) {
  for (const FabricNode& n : graph.hosts)
    if (n.name == name) return &n;
  for (const FabricNode& n : graph.switches)
    if (n.name == name) return &n;
  return nullptr;
}

}  // namespace

FabricPath fabric_path(const FabricGraph& graph, const std::string& from, const std::string& to) {
  const FabricNode* source = node_named(graph, from);
  const FabricNode* target = node_named(graph, to);
  if (!source || source->is_switch || !target || target->is_switch)
    throw std::invalid_argument("a path joins two hosts of the fabric: '" + from + "', '" + to + "'");
  std::map<std::string, std::string> came_from = {{from, ""}};
  std::queue<std::string> frontier;
  frontier.push(from);
  while (!frontier.empty() && !came_from.count(to)) {
    const std::string here = frontier.front();
    frontier.pop();
    // A host forwards nothing: a path goes through switches only.
    if (here != from && !node_named(graph, here)->is_switch) continue;
    for (const FabricLink& link : graph.links) {
      const std::string next = link.a == here ? link.b : link.b == here ? link.a : "";
      if (next.empty() || came_from.count(next)) continue;
      came_from[next] = here;
      frontier.push(next);
    }
  }
  if (!came_from.count(to))
    throw std::invalid_argument("no path joins '" + from + "' and '" + to + "'");
  FabricPath path;
  for (std::string at = to; !at.empty(); at = came_from[at]) path.nodes.insert(path.nodes.begin(), at);
  for (size_t i = 0; i < path.nodes.size(); ++i) {
    const FabricNode* node = node_named(graph, path.nodes[i]);
    if (!node->is_switch) continue;
    ++path.switches;
    // A router between two of its own hosts bridges them (one rack, one
    // subnet): a hop only when the packet goes up or comes down.
    const bool between_hosts = !node_named(graph, path.nodes[i - 1])->is_switch &&
                               !node_named(graph, path.nodes[i + 1])->is_switch;
    path.routers += node->routed && !between_hosts ? 1 : 0;
  }
  return path;
}

std::string host_of_rank(const FabricGraph& graph, int rank) {
  for (const FabricNode& host : graph.hosts)
    if (host.rank == rank) return host.name;
  throw std::invalid_argument("no host carries rank " + std::to_string(rank));
}

}  // namespace fabriclab::runner
