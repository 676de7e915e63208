// Where a lab's ranks run and where its links are impaired, as the scenario
// runner sees it -- whichever way the lab network was built:
//   - namespaces on this machine (runner/topology/topology.h): every rank is
//     local, each in its own namespace (NamespaceNetwork below);
//   - host mode, one runner per machine (runner/host/host_network.h): this
//     runner launches only its own host's ranks, and impairs only its own
//     interface, towards/from the other lab hosts.
// The scenario runner asks the same three questions of both: which ranks do
// I launch and how, where does the impairment of "link rN" go, where do I
// read counters.
//
// Lifetime: implementations borrow what they describe (the Topology, ...);
// keep that alive as long as the LabNetwork. Thread safety: const methods,
// safe from any thread.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "netem/impairment.h"
#include "runner/topology/netns_links.h"

namespace fabriclab::runner {

class Topology;
struct Endpoint;

// The impairment target for one lab device: `device`'s namespace and name,
// only traffic exchanged with `peers` (empty = all), held as `direction` says.
netem::Target target_on(const Endpoint& device, std::vector<std::string> peers,
                        netem::Direction direction);

// One rank this runner launches.
struct LocalRank {
  int rank = 0;              // global rank (torchrun's RANK)
  int local_rank = 0;        // among the ranks of its machine (LOCAL_RANK)
  int local_world_size = 1;  // ranks on its machine (LOCAL_WORLD_SIZE)
  int netns_fd = -1;         // namespace to launch it in; -1 = the runner's
  std::string netns_label;   // for messages and the ledger
  std::string bind_addr;     // the lab address Gloo binds to (FABRICLAB_BIND_ADDR)
};

// Where the counters come from (recordings/FORMAT.md, `counters`): a
// namespace whose TCP retransmissions count and, when `link` is set, the one
// end of that lab link whose device is read for bytes and packets per
// direction. Each link is read at exactly one end, so a byte that crosses it
// is counted once (tx at that end is one direction, rx the other).
struct CounterSource {
  int netns_fd = -1;   // -1 = the runner's own namespace (host mode)
  std::string device;  // the link's end in that namespace; "" = retransmissions only
  std::string link;    // "r0-r1", "r2-sw"; host mode "<host address>-lab"
  std::string end;     // "fl-3fa2c1-r0/eth0": where it is read, for a reader to check
  bool uplink = false;  // a link between two routers ("tor0-spine1"), not a host's
};

// The end of a rank's link away from the rank: the switch's port toward it
// (a `link_fault` sets it down, runner/scenario/link_fault.h).
struct LinkFarEnd {
  std::string link;    // "r1-sw"
  int netns_fd = -1;
  std::string netns;   // "fl-3fa2c1-sw"
  std::string device;  // "port-r1"
};

// A route a router changes when an uplink fails or returns
// (routed_fabric.h, UplinkReroute), in the router's namespace.
struct RouteChange {
  std::string router;  // "tor1"
  int netns_fd = -1;
  std::string netns;   // "fl-3fa2c1-tor1"
  std::string destination;  // "10.77.1.0"
  int prefix_len = 24;
  std::vector<NetnsLinks::NextHop> hops;  // several: ECMP
};

// A fabric uplink a `link_fault` takes down (runner/scenario/uplink_fault.h):
// the port that goes down -- the upper router's (the spine's) end, so the
// ToR's end loses its carrier -- and the ToRs' routes around it and back.
struct UplinkFaultPlace {
  LinkFarEnd down;                  // {"tor0-spine0", spine0's netns, "to-tor0"}
  std::vector<RouteChange> withdraw;
  std::vector<RouteChange> restore;
};

struct SwitchPlace {
  int netns_fd = -1;
  std::string netns;                        // "fl-3fa2c1-sw"
  std::vector<std::string> rank_addresses;  // IPv4, by rank
};

class LabNetwork {
 public:
  virtual ~LabNetwork() = default;
  virtual int world_size() const = 0;
  // The rendezvous address (MASTER_ADDR): rank 0's lab address.
  virtual std::string master_addr() const = 0;
  virtual std::vector<LocalRank> local_ranks() const = 0;
  // Where to impair the links of `link_ranks` (a link "rN" is the traffic
  // rank N sends), given where the backend holds packets (netem::Direction):
  // on the sender's egress, or on each receiver's ingress filtered by the
  // senders' addresses. Only the targets this runner owns are returned.
  virtual std::vector<netem::Target> impairment_targets(const std::vector<int>& link_ranks,
                                                        netem::Direction direction) const = 0;
  virtual std::vector<CounterSource> counter_sources() const = 0;
  // The switch the ranks share, where a `queue` models its ports
  // (runner/link/queue_setting.h): its namespace and every rank's lab
  // address, by rank. Null where there is none this runner owns (a pair, a
  // single rank, host mode).
  virtual std::optional<SwitchPlace> switch_place() const { return std::nullopt; }
  // The far ends of the links of `ranks` this runner owns; empty where it
  // owns none (host mode: a host's interface is not ours to take down).
  virtual std::vector<LinkFarEnd> link_far_ends(const std::vector<int>& /*ranks*/) const {
    return {};
  }
  // Uplink `name` ("tor0-spine0"), where this runner owns the routers;
  // nullopt where it does not (host mode) or there is no such uplink.
  virtual std::optional<UplinkFaultPlace> uplink_fault_place(const std::string& /*name*/) const {
    return std::nullopt;
  }
};

// The namespaces of a Topology: every rank local, rank i in fl-<id>-r<i>.
class NamespaceNetwork : public LabNetwork {
 public:
  explicit NamespaceNetwork(const Topology& topology) : topology_(topology) {}
  int world_size() const override;
  std::string master_addr() const override;
  std::vector<LocalRank> local_ranks() const override;
  std::vector<netem::Target> impairment_targets(const std::vector<int>& link_ranks,
                                                netem::Direction direction) const override;
  std::vector<CounterSource> counter_sources() const override;
  std::optional<SwitchPlace> switch_place() const override;
  std::vector<LinkFarEnd> link_far_ends(const std::vector<int>& ranks) const override;
  std::optional<UplinkFaultPlace> uplink_fault_place(const std::string& name) const override;

 private:
  const Topology& topology_;
};

}  // namespace fabriclab::runner
