// The impairment interface: what the runner holds, whatever the backend.
//
// Backends live in netem/netlink/ (the kernel's sch_netem, configured through
// rtnetlink with libmnl) and netem/userspace/ (for kernels without sch_netem).
// The runner never knows which one it holds (see ../shared/STYLE.md).
//
// Ownership: apply() returns an Applied handle; destroying the handle removes
// exactly what apply() added (qdiscs, filters, rules, threads), and nothing
// else. Handles are movable, not copyable. Not thread-safe: one owner.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "netem/spec.h"

namespace fabriclab::netem {

// Where an impairment goes: a device, in a network namespace (empty = the
// caller's), optionally only for traffic towards some peers (empty = all).
struct Target {
  std::string netns;               // name under /run/netns, or "" for current
  int netns_fd = -1;               // alternative to `netns`: an open ns fd (not owned)
  std::string device;              // e.g. "veth0", "eth1"
  std::vector<std::string> peers;  // IPv4/IPv6 destination addresses
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
};

enum class BackendKind { kNetem, kUserspace, kAuto };

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;  // "netem" or "userspace"
  // Applies `spec` on `target`. Throws InputError for a spec this backend
  // cannot express, std::runtime_error (with the remedy in plain words) for
  // kernel or privilege failures. On throw nothing is left applied.
  virtual std::unique_ptr<Applied> apply(const Target& target, const Spec& spec) = 0;
};

// Picks a backend. For kAuto: netem when the kernel has sch_netem, else
// userspace; `why` (if not null) receives one sentence saying which and why.
std::unique_ptr<Backend> make_backend(BackendKind kind, std::string* why = nullptr);

// "netem" | "userspace" | "auto" -> kind; throws InputError otherwise.
BackendKind parse_backend_kind(const std::string& word);

}  // namespace fabriclab::netem
