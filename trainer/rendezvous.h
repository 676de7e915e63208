// Where a rank meets the others, as torchrun and DDP describe it: the
// fields, their checks and the helpers that need no libtorch. The store and
// the Gloo process group built from it are in process_group.h; this header
// stays free of libtorch so that the runner's and the CLI's translation
// units that only fill a Rendezvous in do not compile libtorch's headers
// (doc/build.md).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace fabriclab::trainer {

struct Rendezvous {
  std::string master_addr;
  int master_port = 29500;
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;
  std::string bind_addr;  // address Gloo binds to; "" = derive (see make_process_group)
  // Or interface names, comma-separated (one Gloo device each, as PyTorch
  // does with GLOO_SOCKET_IFNAME); wins over bind_addr. `iface_from` names
  // where it came from in errors.
  std::string iface;
  std::string iface_from = "--iface";
  // torchrun's agent hosts the store (TORCHELASTIC_USE_AGENT_STORE=True):
  // its restart count; the keys live under /worker/attempt_<n>.
  std::optional<int> agent_store_attempt;
  std::chrono::milliseconds timeout{std::chrono::seconds(60)};
  // Who set the rendezvous (common/launcher_env.h): torchrun, kubeflow,
  // slurm, env or none; recorded in the metrics' start event.
  std::string launcher = "none";
};

// torchrun's agent's key prefix for a restart count: "/worker/attempt_<n>".
std::string agent_store_prefix(int attempt);

// The interface names in `iface` ("eth0,eth1" -> {"eth0", "eth1"}).
std::vector<std::string> iface_names(const std::string& iface);

// Throws InputError when a field is out of range (rank >= world_size, ...)
// or, with more than one rank, an interface in `iface` does not exist here.
void validate(const Rendezvous& rv);

// A rank's process ignores SIGPIPE, as Python (and so every PyTorch DDP
// process) does from its start. Gloo's TCP pairs write with writev(), which
// cannot ask for MSG_NOSIGNAL: without this, a rank writing to a peer that
// died is killed by SIGPIPE instead of reporting the broken connection, and
// the run names a signal where the rank's own error belongs. Call it before
// the rendezvous.
void ignore_broken_pipes();

}  // namespace fabriclab::trainer
