// Which launcher started this process, and the rendezvous it implies, read
// from the environment each one sets:
//
//   torchrun   TORCHELASTIC_RUN_ID, with RANK, WORLD_SIZE, LOCAL_RANK,
//              LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT
//   kubeflow   a PyTorchJob's pod: KUBERNETES_SERVICE_HOST with RANK,
//              WORLD_SIZE, MASTER_ADDR, MASTER_PORT
//   slurm      srun: SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID (no RANK);
//              the master is MASTER_ADDR, else the first host of
//              SLURM_JOB_NODELIST (or SLURM_NODELIST), its port MASTER_PORT
//   env        RANK without any of those (fabriclab's runner, or by hand)
//   none       nothing: a single process
//
// Only what the environment says is filled in; the caller's flags win.
// Pure (the environment is passed in); thread-safe.
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace fabriclab {

struct LauncherEnv {
  std::string launcher = "none";  // torchrun | kubeflow | slurm | env | none
  std::optional<int> rank, world_size, local_rank, local_world_size;
  std::optional<std::string> master_addr;
  std::optional<int> master_port;
};

using GetEnv = std::function<const char*(const char*)>;

// std::invalid_argument naming the variable for a value that is not a
// number, or a SLURM_JOB_NODELIST that is malformed (slurm_nodelist.h).
LauncherEnv read_launcher_env(const GetEnv& getenv);

}  // namespace fabriclab
