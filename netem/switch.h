// A switch whose egress ports are queues the lab chooses (port_spec.h): the
// interface the runner holds, whatever implements it. Today that is the
// userspace switch (netem/userspace/switch_worker.h: the lab's bridge, its
// packets held in NFQUEUE while queue/switch_model.h decides), because the
// kernels here have no red, codel or PFC; a kernel-qdisc switch could sit
// behind the same interface.
//
// Lifetime: destroying it removes everything it set up and lets every
// packet it holds go. Thread safety: counters() and take_window_max() from
// any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "netem/queue/port_spec.h"
#include "netem/queue/switch_model.h"

namespace fabriclab::netem {

struct SwitchPortSetting {
  std::string address;  // the rank behind the port (IPv4)
  PortSpec spec;
};

struct SwitchCounters {
  std::vector<PortCounters> ports;         // in the order given
  std::vector<IngressCounters> ingresses;  // per sender address given, then "other"
};

class Switch {
 public:
  virtual ~Switch() = default;
  virtual SwitchCounters counters() = 0;
  // Per port, the deepest it has been since the previous call (a time series).
  virtual std::vector<uint64_t> take_window_max() = 0;
  // Per port, an ecn port's marking decisions by depth (switch_model.h).
  virtual std::vector<MarkingBucket> marking_trace(int port) = 0;
  // Where it works, for run.json: "userspace switch (NFQUEUE 16000, nft table ...)".
  virtual std::string describe() const = 0;
};

// The userspace switch in the namespace `netns_fd` (not owned; -1: the
// caller's), holding the bridge's traffic to each port's address; `senders`:
// the addresses entering on links of their own (the ranks'), in ingress
// order. Throws std::runtime_error (InputError for a bad address) when it
// cannot be set up; nothing is left then.
std::unique_ptr<Switch> make_userspace_switch(int netns_fd, std::vector<SwitchPortSetting> ports,
                                              std::vector<std::string> senders, uint64_t seed);

}  // namespace fabriclab::netem
