#include "runner/topology/fabric_view.h"

#include <spdlog/fmt/fmt.h>

#include <map>

#include "runner/topology/fabric_paths.h"

namespace fabriclab::runner {
namespace {

std::string joined(const std::vector<std::string>& nodes, const char* between) {
  std::string out;
  for (const std::string& n : nodes) out += (out.empty() ? "" : between) + n;
  return out;
}

}  // namespace

std::string format_fabric(const FabricGraph& graph, int max_pairs) {
  std::string out = fmt::format("fabric '{}': {} host{}, {} switch{}, {} link{}\n\n", graph.kind,
                                graph.hosts.size(), graph.hosts.size() == 1 ? "" : "s",
                                graph.switches.size(), graph.switches.size() == 1 ? "" : "es",
                                graph.links.size(), graph.links.size() == 1 ? "" : "s");
  out += "hosts (one network namespace each)\n";
  for (const FabricNode& host : graph.hosts)
    out += fmt::format("  {:<8} rank {}\n", host.name, host.rank);
  if (!graph.switches.empty()) {
    out += "switches\n";
    for (const FabricNode& sw : graph.switches)
      out += fmt::format("  {:<8} {}\n", sw.name,
                         sw.routed ? "router (a hop in traceroute)"
                                   : "bridge (layer 2: not a hop in traceroute)");
  }
  if (!graph.links.empty()) {
    out += "links (veth pairs; unshaped unless a scenario sets a rate or an impairment)\n";
    for (const FabricLink& link : graph.links)
      out += fmt::format("  {:<10} {} -- {}\n", link.name, link.a, link.b);
  }
  std::vector<std::pair<int, int>> pairs;
  for (size_t i = 0; i < graph.hosts.size(); ++i)
    for (size_t j = i + 1; j < graph.hosts.size(); ++j)
      pairs.emplace_back(graph.hosts[i].rank, graph.hosts[j].rank);
  if (pairs.empty()) return out + "\none rank: it talks to itself over loopback, nothing crosses the fabric\n";
  out += "paths between ranks (IP hops: the lines traceroute prints)\n";
  std::map<std::string, int> shapes;  // "via sw, 1 hop" -> pairs
  int listed = 0;
  for (const auto& [a, b] : pairs) {
    const FabricPath path =
        fabric_path(graph, host_of_rank(graph, a), host_of_rank(graph, b));
    const std::string shape =
        fmt::format("{} switch{}, {} IP hop{}", path.switches, path.switches == 1 ? "" : "es",
                    path.ip_hops(), path.ip_hops() == 1 ? "" : "s");
    ++shapes[shape];
    if (listed++ < max_pairs)
      out += fmt::format("  r{} -> r{}: {:<28} {}\n", a, b, joined(path.nodes, " - "), shape);
  }
  if (listed > max_pairs) {
    out += fmt::format("  ... {} pairs in all:", listed);
    for (const auto& [shape, n] : shapes) out += fmt::format(" {} with {};", n, shape);
    out += "\n";
  }
  return out;
}

}  // namespace fabriclab::runner
