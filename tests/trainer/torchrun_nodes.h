// Test fixture: torchrun itself (the repo's scripts/torchrun, which works
// around Debian 12's torchrun bug) launching `fabriclab train` on two
// "nodes": two network namespaces joined by a veth (TwoNetns), each with its
// own host name (a UTS namespace) that resolves, through its own /etc/hosts
// (a mount namespace: the host's file is never touched), to its lab address
// -- as on a cluster, where torchrun's agents find each other by name.
//
//   node0  10.211.0.1 on trlab0  <--veth-->  node1  10.211.0.2 on trlab0
//
// Every rank writes its metrics to <dir>/node<n>-rank<local rank>.jsonl
// (torchrun substitutes ${local_rank} in the arguments). Teardown kills
// whatever still runs in the two namespaces (only the fixture's own: their
// names carry the test's pid), then deletes them and the temp dir (the
// agents' logs, the ranks' metrics).
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tests/support/child_process.h"
#include "tests/support/two_netns.h"

namespace fabriclab::testing {

struct TorchrunOptions {
  int procs_per_node = 1;
  // "static": torchrun's default; node0's agent hosts the store at
  // MASTER_ADDR:MASTER_PORT (TORCHELASTIC_USE_AGENT_STORE=True).
  // "c10d": the agents meet in a store of their own; rank 0 hosts the
  // training's store on a port the agent picked (USE_AGENT_STORE=False).
  std::string rdzv_backend = "static";
  int max_restarts = 0;
  std::string data = "synthetic";              // fabriclab train's --data ("" = its default)
  std::vector<std::string> train_args;         // after `fabriclab train --data ... --metrics ...`
  std::map<std::string, std::string> env;      // e.g. GLOO_SOCKET_IFNAME
};

class TorchrunNodes {
 public:
  static constexpr const char* kDevice = "trlab0";

  // "" when it can run here (root, iproute2, unshare, python3-torch), else why not.
  static std::string skip_reason();

  explicit TorchrunNodes(TorchrunOptions options);
  ~TorchrunNodes();

  // Waits for node n's torchrun to end.
  ExitStatus wait(int node, std::chrono::milliseconds limit) { return agents_[node]->wait(limit); }
  std::string output(int node) const { return agents_[node]->output(); }
  std::string metrics(int node, int local_rank) const;
  // The pid of the `fabriclab train` worker with this global RANK, or -1.
  pid_t worker_pid(int rank) const;
  const std::string& dir() const { return dir_; }

 private:
  std::string write_node_script(int node) const;

  TorchrunOptions options_;
  TwoNetns nodes_;
  std::string dir_;
  int port_;
  std::vector<std::unique_ptr<ChildProcess>> agents_;
};

}  // namespace fabriclab::testing
