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

#include "trainer/rendezvous.h"

namespace fabriclab::trainer {

// Validates the rendezvous (InputError on bad values) and builds the group.
// With world_size 1 returns nullptr: no store, no sockets, no network.
// Bind address default: 127.0.0.1 when master_addr is loopback, else the
// address the host name resolves to (Gloo's default device).
// `channels` (1 to 8): that many Gloo devices on the same address, so
// ProcessGroupGloo makes that many contexts, each with its own TCP
// connection to every peer (what GLOO_SOCKET_IFNAME=eth0,eth0 does in
// PyTorch), and that many threads to run their collectives concurrently.
// It hands the contexts out round-robin, one per collective.
c10::intrusive_ptr<c10d::ProcessGroup> make_process_group(const Rendezvous& rv, int channels = 1);

// The rendezvous store: rank 0 hosts the TCPStore at master_addr:master_port
// and waits for world_size workers; the others connect; `timeout` bounds it.
// With agent_store_attempt every rank connects, and the store returned is
// the agent's under the prefix /worker/attempt_<n>.
// make_process_group() uses it, as does the allreduce bench's own Gloo set-up.
c10::intrusive_ptr<c10d::Store> connect_store(const Rendezvous& rv);

}  // namespace fabriclab::trainer
