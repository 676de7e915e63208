// The lab network of one run, built from a fabric graph (fabric.h): a
// network namespace per host (one rank each) and per switch (a bridge),
// joined by veth pairs, with IPv4 addresses that exist only inside those
// namespaces. Nothing is created in, or changed on, the host's network.
// The graphs of today's kinds:
//
//   2 ranks:  [fl-<id>-r0: eth0 10.77.0.1] <--veth--> [fl-<id>-r1: eth0 10.77.0.2]
//   N ranks:  [fl-<id>-rI: eth0 10.77.0.(I+1)] <--veth--> [fl-<id>-sw: port-rI] -- br0
//   1 rank:   [fl-<id>-r0: lo only]
//
// Where to impair rank i's link (each qdisc shapes the traffic LEAVING its
// device, so one link has two directions):
//   - rank(i).egress:  rank i's own eth0 -- traffic sent by rank i;
//   - rank(i).ingress: the far end of rank i's link -- the switch port
//     towards rank i (bridge), or the peer rank's eth0 (pair) -- traffic
//     arriving at rank i.
// An Endpoint maps one-to-one onto netem::Target{netns_fd, device}.
//
// Ownership and lifetime: build() returns the owner. Destroying it (or
// destroy()) removes everything build() created, in reverse order: links,
// bridge, then the namespaces (their /run/netns names too); each removal is
// then struck from the ledger. If build() throws, what it had created is
// removed before the exception leaves. Stop the processes running inside
// (runner/process/process.h) before destroying the topology: a process still
// inside keeps its namespace alive after the name is gone.
// The fds in RankNetwork/Endpoint belong to the Topology: valid while it lives.
//
// Thread safety: immutable after build(); accessors may be called from any
// thread. destroy() must not race with anything.
//
// Privileges: CAP_NET_ADMIN and CAP_SYS_ADMIN -- root, or rootless after
// enter_rootless_namespace_if_needed() (user_namespace.h).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "runner/ledger/ledger.h"
#include "runner/topology/fabric.h"
#include "runner/topology/routed_fabric.h"
#include "runner/topology/network_namespace.h"

namespace fabriclab::runner {

struct TopologySpec {
  int ranks = 2;                     // 1 .. kMaxRanks
  std::string run_id;                // is_valid_run_id() (runner/ledger/run_id.h)
  std::string subnet = "10.77.0.0";  // a /24; rank i gets .(i+1)
  std::string fabric = "auto";       // a fabric kind (fabric.h)
  // False: every device on the lab links gets packets of one MTU-sized
  // segment (no GSO/TSO aggregates), so an impairment judges wire frames, as
  // loss on a real link does. True: the kernel's default, up to 64 KB per
  // packet on veth, where one "lost packet" can be 45 frames.
  bool segmentation_offload = true;
};

// One end of a link: a device in a namespace.
struct Endpoint {
  std::string netns;   // namespace name, e.g. "fl-3fa2c1-r0" (a path under
                       // /run/netns only if Topology::named())
  int netns_fd = -1;   // owned by the Topology
  std::string device;  // e.g. "eth0", "port-r1"
  std::string describe() const { return netns + "/" + device; }
};

// A point-to-point veth link.
struct Link {
  std::string name;  // "r0-r1" (pair) or "r2-sw" (rank 2 to the switch)
  int rank = 0;      // the rank this link attaches (the lower one for a pair)
  Endpoint a;        // the rank's side
  Endpoint b;        // the peer rank's side (pair) or the switch port (bridge)
};

struct RankNetwork {
  int rank = 0;
  std::string netns;       // the rank's namespace name
  int netns_fd = -1;       // launch the rank's process here (owned by the Topology)
  std::string netns_path;  // "/run/netns/<netns>" or "" if not named
  std::string device;      // the rank's lab interface ("eth0"; "" for 1 rank)
  std::string ipv4;        // "10.77.0.1"; "127.0.0.1" for a 1-rank topology
  int prefix_len = 24;
  Endpoint egress;   // impair here: traffic sent by this rank
  Endpoint ingress;  // impair here: traffic arriving at this rank
};

class Topology {
 public:
  // Creates the namespaces and links, recording each namespace in `ledger`
  // before creating it. `ledger` must outlive the Topology. Throws
  // InputError for a bad spec, std::runtime_error (with the remedy) for
  // kernel or privilege failures; on throw nothing of it remains.
  static std::unique_ptr<Topology> build(const TopologySpec& spec, Ledger& ledger);

  ~Topology();
  Topology(const Topology&) = delete;
  Topology& operator=(const Topology&) = delete;

  // Removes everything now (what the destructor does); idempotent. Logs and
  // continues past failures, so one stuck object never keeps the others.
  void destroy();

  const std::string& run_id() const { return run_id_; }
  int size() const { return static_cast<int>(ranks_.size()); }
  const std::vector<RankNetwork>& ranks() const { return ranks_; }
  const RankNetwork& rank(int i) const { return ranks_.at(static_cast<size_t>(i)); }
  const std::vector<Link>& links() const { return links_; }
  // Links between two routers (leaf_spine's uplinks), rank -1: `a` is the
  // lower tier's end ("fl-..-tor0/to-spine1"), `b` the upper's.
  const std::vector<Link>& router_links() const { return router_links_; }
  // The rendezvous address (torchrun's MASTER_ADDR): rank 0's address.
  const std::string& master_addr() const { return ranks_.front().ipv4; }
  // True when there is a switch namespace (fabric kind switch).
  bool has_switch() const { return !switches_.empty(); }
  // The (first) switch namespace ("fl-<id>-sw") and its fd; "" / -1 without one.
  std::string switch_netns() const;
  int switch_netns_fd() const;
  // True when the namespaces are visible under /run/netns (`ip netns exec`).
  bool named() const { return named_; }
  // What the routers do when router link `name` fails (routed_fabric.h);
  // std::invalid_argument for a name that is none.
  UplinkReroute uplink_reroute(const std::string& name) const;
  // A router's or switch's namespace ("tor0" -> the fl-<id>-tor0 one).
  const NetworkNamespace& switch_namespace_of(const std::string& name) const;
  // Multi-line human summary: namespaces, devices, addresses.
  std::string describe() const;

 private:
  Topology(Ledger& ledger, std::string run_id);
  // Creates a namespace, recording it in the ledger first.
  int add_namespace(const std::string& name, const std::string& mount_dir);
  void add_host(const FabricNode& host, const std::string& prefix, const std::string& mount_dir,
                bool has_link);
  void add_switch(const FabricNode& node, const std::string& prefix, const std::string& mount_dir);
  void add_link(const FabricLink& link);
  // The routers' links, addresses and routes (routed_fabric.h), once every
  // namespace exists.
  void add_routing();
  int switch_namespace(const std::string& name) const;  // index into namespaces_

  Ledger& ledger_;
  std::string run_id_;
  std::string subnet_;
  bool named_ = false;
  struct OwnedNamespace {
    NetworkNamespace ns;
    Ledger::EntryId entry = 0;
  };
  std::vector<OwnedNamespace> namespaces_;  // creation order
  std::vector<RankNetwork> ranks_;
  std::vector<Link> links_;
  std::vector<Link> router_links_;
  bool segmentation_offload_ = true;
  std::vector<FabricNode> fabric_hosts_;               // by rank
  std::vector<std::pair<std::string, int>> switches_;  // name, index into namespaces_
  RoutedPlan routed_;  // empty without routers
  FabricGraph graph_;  // what was built
};

}  // namespace fabriclab::runner
