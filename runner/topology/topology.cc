#include "runner/topology/topology.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <spdlog/spdlog.h>

#include <sstream>

#include "common/fault_point.h"
#include "common/input_error.h"
#include "common/namespace_sysctl.h"
#include "runner/ledger/run_id.h"
#include "runner/topology/netns_links.h"
#include "runner/topology/user_namespace.h"

namespace fabriclab::runner {
namespace {

constexpr const char* kRankDevice = "eth0";
constexpr const char* kBridge = "br0";
constexpr int kPrefixLen = 24;

std::string port_towards(const std::string& host) { return "port-" + host; }

FabricGraph check_spec(const TopologySpec& spec) {
  if (spec.ranks < 1 || spec.ranks > kMaxRanks) {
    throw InputError("topology: ranks = " + std::to_string(spec.ranks) + ": expected 1-" +
                     std::to_string(kMaxRanks));
  }
  FabricGraph graph;
  try {
    graph = draw_fabric(spec.fabric, spec.ranks);
  } catch (const std::invalid_argument& e) {
    throw InputError(std::string("topology: ") + e.what());
  }
  if (!is_valid_run_id(spec.run_id)) {
    throw InputError("topology: run id '" + spec.run_id + "': expected 1-8 of [a-z0-9]");
  }
  in_addr subnet{};
  if (inet_pton(AF_INET, spec.subnet.c_str(), &subnet) != 1 || (ntohl(subnet.s_addr) & 0xff)) {
    throw InputError("topology: subnet '" + spec.subnet +
                     "': expected the network address of a /24, e.g. 10.77.0.0");
  }
  for (const FabricNode& host : graph.hosts) {
    int links = 0;
    for (const FabricLink& link : graph.links) links += link.a == host.name || link.b == host.name;
    if (links > 1) {
      throw InputError("topology: fabric '" + graph.kind + "': host " + host.name + " has " +
                       std::to_string(links) + " links; hosts have one lab interface");
    }
  }
  return graph;
}

const FabricNode* find_node(const std::vector<FabricNode>& nodes, const std::string& name) {
  for (const FabricNode& node : nodes) {
    if (node.name == name) return &node;
  }
  return nullptr;
}

std::string host_address(const std::string& subnet, int host) {
  in_addr address{};
  inet_pton(AF_INET, subnet.c_str(), &address);
  address.s_addr = htonl(ntohl(address.s_addr) + static_cast<uint32_t>(host));
  char text[INET_ADDRSTRLEN];
  inet_ntop(AF_INET, &address, text, sizeof(text));
  return text;
}

// Lab links carry the lab's traffic only, so the link counters students read
// count nothing else: IPv4 only (no IPv6 router solicitations or
// duplicate-address probes), and no IGMP report for the link-local group a
// bridge with an address joins (224.0.0.106, multicast router discovery,
// RFC 4286: one packet to every host of a rack). Best effort: a kernel
// without IPv6 has nothing to silence.
void silence_namespace(int netns_fd) {
  try_write_sysctl(netns_fd, "net.ipv6.conf.default.disable_ipv6", "1");
  try_write_sysctl(netns_fd, "net.ipv6.conf.all.disable_ipv6", "1");
  try_write_sysctl(netns_fd, "net.ipv4.igmp_link_local_mcast_reports", "0");
}

// A router forwards, and spreads flows over equal-cost routes by a hash of
// their headers' 5-tuple, as a switch ASIC's ECMP does. Not policy 1: for a
// forwarded packet that carries a socket's hash (skb->l4_hash: the sender's
// sk_txhash, which survives the veth pairs between namespaces) policy 1
// uses that hash instead of the headers, and TCP draws a new one after each
// retransmission timeout -- a connection would change spines after a fault,
// which no header-hashing switch does (labs/09-placement/README.md, "A
// spine uplink fails"). Policy 3 hashes the fields it is given, from the
// headers: source and destination address, protocol, source and destination
// port (0x0037). Kernels before 5.16 have no policy 3: policy 1 there.
void enable_forwarding(int netns_fd) {
  write_sysctl(netns_fd, "net.ipv4.ip_forward", "1");
  try {
    write_sysctl(netns_fd, "net.ipv4.fib_multipath_hash_fields", "0x0037");
    write_sysctl(netns_fd, "net.ipv4.fib_multipath_hash_policy", "3");
  } catch (const std::runtime_error& e) {
    spdlog::warn("{}; ECMP hashes with policy 1 (layer 4, the socket's hash where a packet has one)",
                 e.what());
    write_sysctl(netns_fd, "net.ipv4.fib_multipath_hash_policy", "1");
  }
}

}  // namespace

Topology::Topology(Ledger& ledger, std::string run_id)
    : ledger_(ledger), run_id_(std::move(run_id)) {}

Topology::~Topology() { destroy(); }

std::unique_ptr<Topology> Topology::build(const TopologySpec& spec, Ledger& ledger) {
  const FabricGraph graph = check_spec(spec);
  // Owned from the first object on: if anything below throws, the
  // destructor removes what exists so far.
  std::unique_ptr<Topology> topology(new Topology(ledger, spec.run_id));
  topology->subnet_ = spec.subnet;
  const std::string mount_dir = netns_mount_dir();
  topology->named_ = !mount_dir.empty();
  const std::string prefix = "fl-" + spec.run_id + "-";
  topology->fabric_hosts_ = graph.hosts;
  topology->graph_ = graph;
  try {
    topology->routed_ = plan_routed_fabric(graph);
  } catch (const std::invalid_argument& e) {
    throw InputError(std::string("topology: ") + e.what());
  }
  for (const FabricNode& host : graph.hosts) {
    bool has_link = false;
    for (const FabricLink& link : graph.links) has_link |= link.a == host.name || link.b == host.name;
    topology->add_host(host, prefix, mount_dir, has_link);
  }
  for (const FabricNode& node : graph.switches) topology->add_switch(node, prefix, mount_dir);
  for (const FabricLink& link : graph.links) topology->add_link(link);
  for (const RankNetwork& rank : topology->ranks_) {
    if (rank.device.empty()) continue;
    NetnsLinks links(rank.netns_fd, rank.netns);
    links.add_ipv4(rank.device, rank.ipv4, rank.prefix_len);
    links.set_up(rank.device);
  }
  topology->segmentation_offload_ = spec.segmentation_offload;
  topology->add_routing();
  if (!spec.segmentation_offload) {
    for (const Link& link : topology->links_) {
      for (const Endpoint* end : {&link.a, &link.b})
        NetnsLinks(end->netns_fd, end->netns).set_gso_max_segs(end->device, 1);
    }
  }
  spdlog::debug("topology of run {}:\n{}", spec.run_id, topology->describe());
  return topology;
}

void Topology::add_host(const FabricNode& host, const std::string& prefix,
                        const std::string& mount_dir, bool has_link) {
  const int index = add_namespace(prefix + host.name, mount_dir);
  const NetworkNamespace& ns = namespaces_[static_cast<size_t>(index)].ns;
  RankNetwork rank;
  rank.rank = host.rank;
  rank.netns = ns.name();
  rank.netns_fd = ns.fd();
  rank.netns_path = ns.path();
  rank.prefix_len = kPrefixLen;
  if (!has_link) {
    rank.ipv4 = "127.0.0.1";
  } else {
    rank.device = kRankDevice;
    const auto routed = routed_.host_address.find(host.name);
    rank.ipv4 = routed != routed_.host_address.end() ? routed->second
                                                     : host_address(subnet_, host.rank + 1);
    rank.egress = {rank.netns, rank.netns_fd, rank.device};
    silence_namespace(rank.netns_fd);
  }
  NetnsLinks(rank.netns_fd, rank.netns).set_up("lo");
  ranks_.push_back(rank);
}

void Topology::add_switch(const FabricNode& node, const std::string& prefix,
                          const std::string& mount_dir) {
  const int index = add_namespace(prefix + node.name, mount_dir);
  const NetworkNamespace& sw = namespaces_[static_cast<size_t>(index)].ns;
  silence_namespace(sw.fd());
  NetnsLinks links(sw.fd(), sw.name());
  links.set_up("lo");
  switches_.emplace_back(node.name, index);
  if (node.routed) enable_forwarding(sw.fd());
  const auto gateway = routed_.tor_gateway.find(node.name);
  if (node.routed && gateway == routed_.tor_gateway.end()) return;  // a spine: router links only
  links.create_bridge(kBridge);
  links.set_up(kBridge);
  if (gateway != routed_.tor_gateway.end()) links.add_ipv4(kBridge, gateway->second, kPrefixLen);
}

int Topology::switch_namespace(const std::string& name) const {
  for (const auto& [switch_name, index] : switches_)
    if (switch_name == name) return index;
  throw std::logic_error("topology: no switch " + name);
}

UplinkReroute Topology::uplink_reroute(const std::string& name) const {
  return plan_uplink_reroute(graph_, name);
}

const NetworkNamespace& Topology::switch_namespace_of(const std::string& name) const {
  return namespaces_.at(static_cast<size_t>(switch_namespace(name))).ns;
}

void Topology::add_routing() {
  for (const RouterLinkPlan& link : routed_.router_links) {
    const NetworkNamespace& a = namespaces_.at(static_cast<size_t>(switch_namespace(link.a))).ns;
    const NetworkNamespace& b = namespaces_.at(static_cast<size_t>(switch_namespace(link.b))).ns;
    NetnsLinks a_links(a.fd(), a.name());
    NetnsLinks b_links(b.fd(), b.name());
    a_links.create_veth(link.a_device, link.b_device, b.fd());
    a_links.add_ipv4(link.a_device, link.a_address, 31);
    b_links.add_ipv4(link.b_device, link.b_address, 31);
    a_links.set_up(link.a_device);
    b_links.set_up(link.b_device);
    if (!segmentation_offload_) {
      a_links.set_gso_max_segs(link.a_device, 1);
      b_links.set_gso_max_segs(link.b_device, 1);
    }
    router_links_.push_back(
        {link.name, -1, {a.name(), a.fd(), link.a_device}, {b.name(), b.fd(), link.b_device}});
  }
  for (const RoutePlan& route : routed_.routes) {
    std::vector<NetnsLinks::NextHop> hops;
    for (const NextHopPlan& hop : route.hops) hops.push_back({hop.gateway, hop.device});
    const FabricNode* host = find_node(fabric_hosts_, route.node);
    const int netns_fd = host ? ranks_.at(static_cast<size_t>(host->rank)).netns_fd
                              : namespaces_.at(static_cast<size_t>(switch_namespace(route.node))).ns.fd();
    NetnsLinks(netns_fd, route.node).add_route(route.destination, route.prefix_len, hops);
  }
}

void Topology::add_link(const FabricLink& link) {
  const FabricNode* a = find_node(fabric_hosts_, link.a);
  if (!a) return;  // between two routers: add_routing() makes it
  RankNetwork& host = ranks_.at(static_cast<size_t>(a->rank));
  if (const FabricNode* b = find_node(fabric_hosts_, link.b)) {
    RankNetwork& peer = ranks_.at(static_cast<size_t>(b->rank));
    NetnsLinks(host.netns_fd, host.netns).create_veth(host.device, peer.device, peer.netns_fd);
    host.ingress = peer.egress;
    peer.ingress = host.egress;
    links_.push_back({link.name, host.rank, host.egress, peer.egress});
    return;
  }
  int index = -1;
  for (const auto& [name, i] : switches_) index = name == link.b ? i : index;
  const NetworkNamespace& sw = namespaces_.at(static_cast<size_t>(index)).ns;
  NetnsLinks socket(sw.fd(), sw.name());
  const std::string port = port_towards(link.a);
  socket.create_veth(port, host.device, host.netns_fd);
  socket.set_master(port, kBridge);
  socket.set_up(port);
  host.ingress = {sw.name(), sw.fd(), port};
  links_.push_back({link.name, host.rank, host.egress, host.ingress});
}

int Topology::add_namespace(const std::string& name, const std::string& mount_dir) {
  const std::string path = mount_dir.empty() ? "" : mount_dir + "/" + name;
  // Written down before it exists: a SIGKILL between here and the end of
  // create() leaves a ledger entry for something that may not exist, which
  // cleanup handles; the opposite would leave an unrecorded namespace.
  Ledger::EntryId entry = ledger_.record({{"kind", "netns"},
                                          {"name", name},
                                          {"path", path},
                                          {"host_mount", in_initial_user_namespace()},
                                          {"inode", 0}});
  NetworkNamespace ns;
  try {
    ns = NetworkNamespace::create(name, mount_dir);
  } catch (...) {
    ledger_.forget(entry);
    throw;
  }
  ledger_.update(entry, {{"inode", ns.inode()}});
  namespaces_.push_back({std::move(ns), entry});
  return static_cast<int>(namespaces_.size()) - 1;
}

void Topology::destroy() {
  // Reverse order of creation. Deleting one end of a veth deletes the pair.
  for (auto link = links_.rbegin(); link != links_.rend(); ++link) {
    try {
      NetnsLinks(link->a.netns_fd, link->a.netns).delete_link(link->a.device);
    } catch (const std::exception& e) {
      spdlog::warn("topology {}: {}", run_id_, e.what());
    }
  }
  links_.clear();
  router_links_.clear();  // they go with their namespaces
  for (const auto& [name, index] : switches_) {
    const NetworkNamespace& sw = namespaces_[static_cast<size_t>(index)].ns;
    try {
      NetnsLinks(sw.fd(), sw.name()).delete_link(kBridge);
    } catch (const std::exception& e) {
      spdlog::warn("topology {}: {}", run_id_, e.what());
    }
  }
  for (auto owned = namespaces_.rbegin(); owned != namespaces_.rend(); ++owned) {
    owned->ns.destroy();
    ledger_.forget(owned->entry);
    if (owned == namespaces_.rbegin() && namespaces_.size() > 1) fault_point("teardown");
  }
  namespaces_.clear();
  switches_.clear();
  for (RankNetwork& rank : ranks_) rank.netns_fd = -1;
}

std::string Topology::switch_netns() const {
  return has_switch() ? namespaces_[static_cast<size_t>(switches_.front().second)].ns.name() : "";
}

int Topology::switch_netns_fd() const {
  return has_switch() ? namespaces_[static_cast<size_t>(switches_.front().second)].ns.fd() : -1;
}

std::string Topology::describe() const {
  std::ostringstream out;
  for (const RankNetwork& rank : ranks_) {
    out << "  rank " << rank.rank << ": netns " << rank.netns;
    if (!rank.device.empty()) {
      out << ", " << rank.device << " " << rank.ipv4 << "/" << rank.prefix_len << ", peer side "
          << rank.ingress.describe();
    }
    out << "\n";
  }
  if (!routed_.empty()) {
    for (const auto& [name, index] : switches_) {
      out << "  router " << name << ": netns " << namespaces_[static_cast<size_t>(index)].ns.name();
      const auto gateway = routed_.tor_gateway.find(name);
      if (gateway != routed_.tor_gateway.end())
        out << ", its hosts bridged on " << kBridge << ", gateway " << gateway->second;
      out << "\n";
    }
    out << "  router links: " << routed_.router_links.size()
        << " (/31 each); routes to other racks over every shortest path (ECMP, layer-4 hash)\n";
  } else if (has_switch()) {
    out << "  switch: netns " << switch_netns() << ", bridge " << kBridge << "\n";
  }
  if (!segmentation_offload_ && !links_.empty()) {
    out << "  links carry MTU-sized frames (segmentation offload off: gso_max_segs 1)\n";
  }
  if (named_ && in_initial_user_namespace()) {
    out << "  (names under /run/netns: `ip netns exec <netns> ...` works)";
  } else if (named_) {
    out << "  (rootless: names on the runner's private /run/netns; from outside use `nsenter "
           "--target <rank pid> --user --net`)";
  } else {
    out << "  (namespaces without names: from outside use `nsenter --target <rank pid> --user "
           "--net`)";
  }
  return out.str();
}

}  // namespace fabriclab::runner
