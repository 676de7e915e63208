// Test fixture: a real single-node Slurm cluster (Debian 12's slurmctld and
// slurmd, slurm-wlm) inside a network namespace of its own, so `srun` can
// start ranks for real. Everything lives in a temp dir: slurm.conf,
// cgroup.conf, the state and spool dirs, the daemons' logs and pid files.
//
// No munge: auth/none and cred/none (both plugins ship with Debian's 22.05).
// The node is "localhost" with 4 CPUs (SlurmdParameters=config_overrides, so
// a 2-core machine takes 4 tasks). Slurm resolves every address with
// AI_ADDRCONFIG, which finds nothing in a namespace that has only loopback,
// so the namespace also holds a veth pair with 10.212.0.1 on one end, the
// daemons' address. Teardown kills every process in the namespace (ours
// alone: its name carries the pid), deletes it and the temp dir.
#pragma once

#include <chrono>
#include <string>

#include "tests/support/child_process.h"

namespace fabriclab::testing {

class SlurmCluster {
 public:
  // "" when it can run here (root, iproute2, slurm-wlm), else why not.
  static std::string skip_reason();

  // Starts both daemons and waits until the node is idle; throws
  // std::runtime_error with their logs if they do not come up.
  SlurmCluster();
  ~SlurmCluster();
  SlurmCluster(const SlurmCluster&) = delete;
  SlurmCluster& operator=(const SlurmCluster&) = delete;

  // Runs `srun <args>` in the cluster's namespace (through /bin/sh: quote
  // what the shell must not expand) and waits up to `limit`.
  RunResult srun(const std::string& args, std::chrono::milliseconds limit) const;
  const std::string& dir() const { return dir_; }
  double start_seconds() const { return start_seconds_; }  // daemons up and idle

 private:
  std::string in_netns(const std::string& command) const;
  void stop();

  std::string dir_;
  std::string netns_;
  double start_seconds_ = 0;
};

}  // namespace fabriclab::testing
