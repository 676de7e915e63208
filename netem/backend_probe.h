// What each impairment backend can do on this machine, and why not: the one
// place the runner (`fabriclab doctor`, `bench impair`, make_backend's kAuto)
// asks, whatever the backends are. Each backend folder has its own probe
// with the same name and shape -- netem/netlink/netlink_probe.h (is there a
// sch_netem?) and netem/userspace/userspace_probe.h (do NFQUEUE and the
// nftables queue target work?) -- and this file only dispatches to them.
//
// A probe never changes the host: it tries what it needs in a throwaway
// network namespace of a short-lived thread, and falls back to what the
// filesystem says when it lacks the privilege to make one.
// Thread-safe. Takes a few milliseconds.
#pragma once

#include <string>
#include <vector>

#include "netem/impairment.h"

namespace fabriclab::netem {

enum class Availability {
  kYes,      // the backend works here
  kNo,       // it does not; `why` says what is missing and the remedy
  kUnknown,  // could not tell (no privilege to try); apply() will find out
};

struct BackendProbe {
  BackendKind kind = BackendKind::kNetem;
  std::string name;  // "netem" or "userspace", as Backend::name()
  Availability availability = Availability::kUnknown;
  std::string why;  // one sentence: how it was found out, or what is missing
};

// Probes one backend: kNetem or kUserspace (kAuto throws std::logic_error).
BackendProbe probe_backend(BackendKind kind);

// Probes every backend, netem first (the order kAuto prefers them in).
std::vector<BackendProbe> probe_backends();

// Can a switch's port queue (lab 08; the userspace backend's, whatever the
// impairment backend) be built here? kYes or kNo; `why` says which way it
// queues (nftables' bridge family, or br_netfilter already present) or what
// is missing and what to run (netem/userspace/nft_switch_rules.h).
Availability probe_switch_queue(std::string* why);

}  // namespace fabriclab::netem
