// A real Slurm cluster of N nodes over BridgedHosts' namespaces, for host
// mode started by srun: Debian's slurmctld in node 0's namespace and one
// slurmd per node namespace (`slurmd -N fl-nodeK`), all from a slurm.conf in
// a temp dir (auth/none, no munge: tests/trainer/slurm_cluster.h says why).
//
// The node names resolve to the nodes' lab addresses through
// /etc/netns/<namespace>/hosts, which `ip netns exec` mounts over
// /etc/hosts for what it starts -- the daemons, and so the tasks srun
// launches through them. The destructor kills the daemons and removes those
// files and the temp dir; BridgedHosts removes the namespaces.
#pragma once

#include <chrono>
#include <string>

#include "tests/runner/host/bridged_hosts.h"
#include "tests/support/child_process.h"

namespace fabriclab::runner::testing {

class SlurmNodes {
 public:
  // "" when it can run here (slurm-wlm installed), else why not.
  static std::string skip_reason();
  static std::string node_name(int h) { return "fl-node" + std::to_string(h); }

  // Starts the daemons and waits until every node is idle; `error()` says
  // what failed (with the daemons' logs) when they do not come up.
  explicit SlurmNodes(const BridgedHosts& hosts);
  ~SlurmNodes();
  SlurmNodes(const SlurmNodes&) = delete;
  SlurmNodes& operator=(const SlurmNodes&) = delete;

  const std::string& error() const { return error_; }
  // `Slurm's command line` (srun ..., scancel ..., squeue ...) in node 0's
  // namespace, as a user on the cluster would type it: argv for ChildProcess.
  std::vector<std::string> command(const std::string& line) const;
  fabriclab::testing::RunResult run(const std::string& line, std::chrono::milliseconds limit) const;
  // The pids of processes in node h's namespace that are not Slurm's daemons.
  std::string other_pids(int h) const;
  std::string logs() const;

 private:
  void start();
  void stop();

  const BridgedHosts& hosts_;
  std::string dir_;
  std::string error_;
};

}  // namespace fabriclab::runner::testing
