// Host mode's guardian: a small process that removes fabriclab's qdisc from a
// real interface when the runner is gone, however it went -- including
// SIGKILL, when no destructor runs. On a lab's own namespaces that is not
// needed (the namespaces go, and everything in them), but a host's real
// interface stays, and a forgotten 10% loss on a VM's only NIC cuts off SSH.
//
// How: the runner starts `fabriclab cleanup --iface IF --guard` (the same
// binary) with the read end of a pipe as its stdin and keeps the write end.
// The kernel closes that end when the runner dies for any reason; the
// guardian reads EOF and runs what `fabriclab cleanup --iface IF` does
// (interface_cleanup.h), then exits. A runner that ends normally has already
// removed its impairments; the guardian then finds nothing to do.
// The guardian has its own process group (a Ctrl-C at the terminal reaches
// only the runner, which cleans up itself) and is not in the ledger (cleanup
// must not kill it before it has done its job).
//
// Only the netem backend needs it: the userspace backend's nft tables belong
// to the runner's netlink socket and the kernel removes them with it
// (netem/userspace/nft_queue_rules.h; tests/runner/host/host_mode_test.cc
// checks). It lives in runner/cleanup/ beside what it runs; host mode
// (runner/host/host_run.cc) is its user.
//
// Ownership: the object owns the pipe's write end and the child. Destroying
// it closes the pipe and waits up to kReapTimeout for the guardian.
// Errors: the constructor throws std::runtime_error if it cannot start it.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>

namespace fabriclab::runner {

class ImpairmentGuardian {
 public:
  static constexpr std::chrono::seconds kReapTimeout{5};

  // `netns`: name under /run/netns, "" = the runner's own namespace.
  // `program`: the fabriclab binary (tests pass theirs).
  explicit ImpairmentGuardian(const std::string& device, const std::string& netns = "",
                              const std::string& program = "/proc/self/exe");
  ~ImpairmentGuardian();
  ImpairmentGuardian(const ImpairmentGuardian&) = delete;
  ImpairmentGuardian& operator=(const ImpairmentGuardian&) = delete;

  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
  int pipe_write_ = -1;
};

// The guardian's side (`cleanup --guard`): blocks until stdin reaches EOF,
// ignoring Ctrl-C and hang-up meanwhile.
void wait_for_runner_to_end();

}  // namespace fabriclab::runner
