// Host mode's lab network, as this runner sees it (a LabNetwork,
// runner/topology/lab_network.h): the lab hosts' real interfaces, one runner
// per host. This runner launches only its own host's ranks, with no
// namespace, binding Gloo to its lab address, and impairs only its own
// interface `iface`, and only traffic exchanged with the other lab hosts --
// so SSH and everything else on that interface stay untouched:
//   - a backend that holds packets on egress (netem): the link "rN" is
//     impaired on rank N's host, towards every other lab host (the netem
//     backend's peer filter: htb + u32);
//   - one that holds them on arrival (userspace, see netem::Direction): on
//     every other host, on packets arriving from rank N's host.
// Traffic between ranks on the same host goes over loopback and is never
// impaired (like GPUs in one server: no fabric between them).
//
// Thread safety: immutable; safe from any thread.
#pragma once

#include <string>

#include "runner/host/host_roster.h"
#include "runner/topology/lab_network.h"

namespace fabriclab::runner::host {

class HostNetwork : public LabNetwork {
 public:
  HostNetwork(HostRoster roster, std::string iface)
      : roster_(std::move(roster)), iface_(std::move(iface)) {}

  int world_size() const override { return roster_.world_size(); }
  std::string master_addr() const override { return roster_.lead(); }
  std::vector<LocalRank> local_ranks() const override;
  std::vector<netem::Target> impairment_targets(const std::vector<int>& link_ranks,
                                                netem::Direction direction) const override;
  // One link per host: `iface`, this host's way to the others, named
  // "<this host's address>-lab" and read here ("<address>/<iface>"). It also
  // carries whatever else uses the interface (SSH, ...).
  std::vector<CounterSource> counter_sources() const override;

  const HostRoster& roster() const { return roster_; }
  const std::string& iface() const { return iface_; }

 private:
  HostRoster roster_;
  std::string iface_;
};

}  // namespace fabriclab::runner::host
