#include "common/launcher_env.h"

#include <stdexcept>

#include "common/slurm_nodelist.h"

namespace fabriclab {
std::optional<int> env_number(const GetEnv& getenv, const char* name) {
  const char* value = getenv(name);
  if (value == nullptr || *value == '\0') return std::nullopt;
  try {
    size_t used = 0;
    const int n = std::stoi(value, &used);
    if (used == std::string(value).size() && n >= 0) return n;
  } catch (const std::exception&) {
  }
  throw std::invalid_argument(std::string(name) + "=" + value + ": expected a non-negative integer");
}

namespace {

std::optional<std::string> text(const GetEnv& getenv, const char* name) {
  const char* value = getenv(name);
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

}  // namespace

LauncherEnv read_launcher_env(const GetEnv& getenv) {
  LauncherEnv env;
  env.master_addr = text(getenv, "MASTER_ADDR");
  env.master_port = env_number(getenv, "MASTER_PORT");
  env.gloo_socket_ifname = text(getenv, "GLOO_SOCKET_IFNAME");
  if (text(getenv, "RANK")) {
    env.launcher = text(getenv, "TORCHELASTIC_RUN_ID")       ? "torchrun"
                   : text(getenv, "KUBERNETES_SERVICE_HOST") ? "kubeflow"
                                                             : "env";
    env.rank = env_number(getenv, "RANK");
    env.world_size = env_number(getenv, "WORLD_SIZE");
    env.local_rank = env_number(getenv, "LOCAL_RANK");
    env.local_world_size = env_number(getenv, "LOCAL_WORLD_SIZE");
    // PyTorch's test is the same string compare (rendezvous.py).
    if (text(getenv, "TORCHELASTIC_USE_AGENT_STORE") == std::string("True")) {
      env.agent_store_attempt = env_number(getenv, "TORCHELASTIC_RESTART_COUNT");
      if (!env.agent_store_attempt) {
        throw std::invalid_argument(
            "TORCHELASTIC_USE_AGENT_STORE=True needs TORCHELASTIC_RESTART_COUNT (the attempt "
            "whose key prefix the agent's store uses)");
      }
    }
    return env;
  }
  if (!text(getenv, "SLURM_PROCID")) return env;
  env.launcher = "slurm";
  env.rank = env_number(getenv, "SLURM_PROCID");
  env.world_size = env_number(getenv, "SLURM_NTASKS");
  env.local_rank = env_number(getenv, "SLURM_LOCALID");
  if (!env.master_addr) {
    auto nodes = text(getenv, "SLURM_JOB_NODELIST");
    if (!nodes) nodes = text(getenv, "SLURM_NODELIST");
    if (nodes) {
      try {
        env.master_addr = expand_slurm_nodelist(*nodes).front();
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(std::string("SLURM_JOB_NODELIST: ") + e.what());
      }
    }
  }
  return env;
}

}  // namespace fabriclab
