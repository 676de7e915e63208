// Which launcher started this process, and the rendezvous it implies, read
// from the environment each one sets:
//
//   torchrun   TORCHELASTIC_RUN_ID, with RANK, WORLD_SIZE, LOCAL_RANK,
//              LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT; with
//              TORCHELASTIC_USE_AGENT_STORE=True (its static rendezvous,
//              the default) the agent already hosts the store there, and
//              every rank joins it as a client under the prefix
//              /worker/attempt_<TORCHELASTIC_RESTART_COUNT>, as PyTorch's
//              env:// rendezvous does
//   kubeflow   a PyTorchJob's pod: KUBERNETES_SERVICE_HOST with RANK,
//              WORLD_SIZE, MASTER_ADDR, MASTER_PORT
//   slurm      srun: SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID (no RANK);
//              the master is MASTER_ADDR, else the first host of
//              SLURM_JOB_NODELIST (or SLURM_NODELIST), its port MASTER_PORT
//   env        RANK without any of those (fabriclab's runner, or by hand)
//   none       nothing: a single process
//
// Any launcher: GLOO_SOCKET_IFNAME names the interface(s) Gloo binds to
// (comma-separated, one Gloo device each), as in PyTorch.
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
  // Set when torchrun's agent hosts the store: the restart count, which
  // makes the key prefix /worker/attempt_<n>.
  std::optional<int> agent_store_attempt;
  std::optional<std::string> gloo_socket_ifname;
};

using GetEnv = std::function<const char*(const char*)>;

// std::invalid_argument naming the variable for a value that is not a
// number, a SLURM_JOB_NODELIST that is malformed (slurm_nodelist.h), or
// TORCHELASTIC_USE_AGENT_STORE=True without TORCHELASTIC_RESTART_COUNT.
LauncherEnv read_launcher_env(const GetEnv& getenv);

// The variable `name` as a non-negative integer; nullopt when unset or
// empty; std::invalid_argument "NAME=VALUE: expected a non-negative integer"
// otherwise. Shared with slurm_step.h.
std::optional<int> env_number(const GetEnv& getenv, const char* name);

}  // namespace fabriclab
