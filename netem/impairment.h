// The impairment interface: what the runner holds, whatever the backend.
//
// Backends live in netem/netlink/ (the kernel's sch_netem, configured through
// rtnetlink with libmnl) and netem/userspace/ (for kernels without sch_netem).
// The runner never knows which one it holds (runner/README.md).
//
// Ownership: apply() returns an Applied handle; destroying the handle removes
// exactly what apply() added (qdiscs, filters, rules, threads), and nothing
// else. Handles are movable, not copyable. Not thread-safe: one owner.
// What a handle could not remove (its process was killed) each backend finds
// again by its reserved names and removes with remove_leftovers().
//
// Around this interface: make_backend() below picks a backend by kind;
// netem/backend_probe.h says which backends can run here and why not. Code
// outside netem/ includes only these two headers (and spec.h/spec_parse.h),
// never a backend folder.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "netem/spec.h"

namespace fabriclab::netem {

// Which packets of the device an impairment holds: those leaving it (what a
// netem qdisc does) or those arriving on it. Arrival exists for the userspace
// backend: a packet it holds on egress is still charged to the sending
// socket, and TCP Small Queues then let a sender have only about two packets
// below TCP, so a 100 ms delay would cap a flow near 30 kB/s. The kernel's
// netem detaches the packet from its socket (skb_orphan_partial); userspace
// cannot, but a packet that has arrived has been detached by the receive path
// (ip_rcv). Delaying A's packets as they arrive at B is, for the flow, what
// delaying them as they leave A would be.
enum class Direction { kEgress, kIngress };

// Where an impairment goes: a device, in a network namespace (empty = the
// caller's), optionally only for traffic exchanged with some peers (empty =
// all).
struct Target {
  std::string netns;               // name under /run/netns, or "" for current
  int netns_fd = -1;               // alternative to `netns`: an open ns fd (not owned)
  std::string device;              // e.g. "veth0", "eth1"
  std::vector<std::string> peers;  // IPv4/IPv6: destinations on egress, sources on ingress
  Direction direction = Direction::kEgress;
};

// Counters read back from the impairment (qdisc stats or the userspace
// backend's own), in base units. Cumulative since apply().
struct Stats {
  uint64_t packets = 0;  // packets that went through the impairment
  uint64_t bytes = 0;
  uint64_t drops = 0;  // packets the impairment dropped (asked-for loss + overflow)
  uint64_t overlimits = 0;
  uint64_t backlog_packets = 0;  // held right now (delayed)
};

class Applied {
 public:
  virtual ~Applied() = default;  // removes the impairment
  virtual Stats stats() const = 0;
  virtual std::string describe() const = 0;  // e.g. "netem on r0/veth0: delay 100ms"
  // Leaves the impairment in place when this handle is destroyed (for the
  // CLI's persistent `netem apply`; `netem clear` removes it later). Returns
  // false, and changes nothing, for a backend whose impairment lives in this
  // process (userspace): it ends with the process whatever happens.
  virtual bool release() { return false; }
  // Puts `spec` in place of the impairment this handle holds, on the same
  // target, without taking it off (a link fault's change of impairment,
  // runner/scenario/impair_change.h): what is held keeps its release time,
  // as `tc qdisc change` keeps netem's queue, and the counters go on.
  // Destroying the handle still removes it. Throws like Backend::apply
  // (InputError for words this backend cannot express, std::runtime_error
  // for a kernel refusal); on a throw the impairment in force stays. By
  // default a backend cannot: std::runtime_error.
  virtual void change(const Spec& spec);
};

enum class BackendKind { kNetem, kUserspace, kAuto };

// What remove_leftovers() found on a device and did, one sentence per object.
struct Leftovers {
  std::vector<std::string> actions;  // one sentence per object found (or "no ... on DEV")
  std::vector<std::string> removed;  // the sentences of those that were fabriclab's and went
                                     // (with dry_run: would go)
  bool ok = true;                    // false when something could not be removed
};

// Settings make_backend() passes on to the backend that uses them.
struct BackendOptions {
  // Userspace: seed of the random model (loss, jitter, reorder); 0 = from
  // std::random_device. Tests and benchmarks set it to be reproducible. The
  // netem backend's randomness is the kernel's.
  uint64_t seed = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;  // "netem" or "userspace"
  // Where the runner should impair a link from A to B: on A's egress (netem)
  // or on B's ingress (userspace; see Direction for why).
  virtual Direction link_direction() const { return Direction::kEgress; }
  // Applies `spec` on `target`. Throws InputError for a spec this backend
  // cannot express, std::runtime_error (with the remedy in plain words) for
  // kernel or privilege failures. On throw nothing is left applied.
  virtual std::unique_ptr<Applied> apply(const Target& target, const Spec& spec) = 0;
  // "What did I leave on this device? Remove it": removes what this backend
  // puts on target.device (in target.netns / netns_fd; peers and direction
  // are ignored) under fabriclab's reserved names, and nothing else -- for
  // `fabriclab cleanup --iface` and host mode's guardian, after a runner was
  // killed before its handles could. netem: the root qdisc fab0: with its
  // classes and filters; userspace: the nft tables fabriclab_<dev>[_in].
  // With dry_run, only says what would go. Needs CAP_NET_ADMIN there. Never
  // throws for a missing object; a failure is one sentence with ok = false.
  virtual Leftovers remove_leftovers(const Target& target, bool dry_run) = 0;
};

// Picks a backend. For kAuto: netem when the kernel has sch_netem, else
// userspace; `why` (if not null) receives one sentence saying which and why.
// True when the netem backend applies `spec` on a kernel without sch_netem
// too: a rate alone (and limit) goes on a token bucket filter
// (netem/netlink/tbf_qdisc.h).
bool shapes_without_sch_netem(const Spec& spec);

std::unique_ptr<Backend> make_backend(BackendKind kind, std::string* why = nullptr);
std::unique_ptr<Backend> make_backend(BackendKind kind, const BackendOptions& options,
                                      std::string* why = nullptr);

// "netem" | "userspace" | "auto" -> kind; throws InputError otherwise.
BackendKind parse_backend_kind(const std::string& word);

}  // namespace fabriclab::netem
