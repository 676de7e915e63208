// Rendezvous and the Gloo process group, as torchrun + DDP set them up.
//
// Rank 0 hosts a c10d TCPStore on MASTER_ADDR:MASTER_PORT; every rank
// connects to it, and ProcessGroupGloo uses it to exchange the addresses of
// its TCP pairs. Under torchrun's static rendezvous its agent hosts that
// store already: then every rank is a client, under the agent's key prefix
// (`agent_store_attempt`). Gloo binds to `bind_addr` (or `iface`): labs pass
// the lab network's address so collectives never use another interface.
//
// Timeouts: `timeout` bounds the rendezvous (waiting for all ranks) and every
// collective; when it expires, or a peer closes its connections (it died),
// the pending collective throws (c10::Error or gloo::IoException; catch
// std::exception). Callers turn that into an exit.
#pragma once

#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

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

// Validates the rendezvous (InputError on bad values) and builds the group.
// With world_size 1 returns nullptr: no store, no sockets, no network.
// Bind address default: 127.0.0.1 when master_addr is loopback, else the
// address the host name resolves to (Gloo's default device).
c10::intrusive_ptr<c10d::ProcessGroup> make_process_group(const Rendezvous& rv);

// The rendezvous store: rank 0 hosts the TCPStore at master_addr:master_port
// and waits for world_size workers; the others connect; `timeout` bounds it.
// With agent_store_attempt every rank connects, and the store returned is
// the agent's under the prefix /worker/attempt_<n>.
// make_process_group() uses it, as does the allreduce bench's own Gloo set-up.
c10::intrusive_ptr<c10d::Store> connect_store(const Rendezvous& rv);

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
