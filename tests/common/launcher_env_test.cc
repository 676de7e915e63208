// Which launcher started a rank, and its rendezvous, from the variables
// each one sets (common/launcher_env.h).
#include "common/launcher_env.h"

#include <gtest/gtest.h>

#include <map>
#include <stdexcept>

namespace fabriclab {
namespace {

LauncherEnv read(const std::map<std::string, std::string>& vars) {
  return read_launcher_env([&](const char* name) -> const char* {
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  });
}

TEST(LauncherEnv, SrunsVariablesMakeTheRendezvous) {
  const LauncherEnv env = read({{"SLURM_PROCID", "3"},
                                {"SLURM_NTASKS", "4"},
                                {"SLURM_LOCALID", "1"},
                                {"SLURM_JOB_NODELIST", "gpu[07-08]"},
                                {"MASTER_PORT", "29600"}});
  EXPECT_EQ(env.launcher, "slurm");
  EXPECT_EQ(env.rank, 3);
  EXPECT_EQ(env.world_size, 4);
  EXPECT_EQ(env.local_rank, 1);
  EXPECT_EQ(env.master_addr, "gpu07") << "the first host of the job's list";
  EXPECT_EQ(env.master_port, 29600);
  EXPECT_EQ(read({{"SLURM_PROCID", "0"}, {"SLURM_NODELIST", "a,b"}, {"MASTER_ADDR", "10.0.0.9"}})
                .master_addr,
            "10.0.0.9")
      << "MASTER_ADDR wins over the node list";
}

TEST(LauncherEnv, TorchrunKubeflowAndPlainRankAreToldApart) {
  const std::map<std::string, std::string> rank = {
      {"RANK", "1"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "10.77.0.1"}, {"LOCAL_RANK", "0"}};
  auto torchrun = rank;
  torchrun["TORCHELASTIC_RUN_ID"] = "none";
  auto kubeflow = rank;
  kubeflow["KUBERNETES_SERVICE_HOST"] = "10.96.0.1";
  EXPECT_EQ(read(torchrun).launcher, "torchrun");
  EXPECT_EQ(read(kubeflow).launcher, "kubeflow");
  EXPECT_EQ(read(rank).launcher, "env");
  EXPECT_EQ(read(rank).rank, 1);
  auto both = rank;
  both["SLURM_PROCID"] = "5";
  EXPECT_EQ(read(both).rank, 1) << "torchrun under srun: RANK is torchrun's";
  EXPECT_EQ(read({}).launcher, "none");
}

// torchrun's static rendezvous (its default): the agent hosts the store, and
// the restart count picks the key prefix.
TEST(LauncherEnv, TorchrunsAgentStoreGivesTheAttempt) {
  std::map<std::string, std::string> torchrun = {{"RANK", "0"},
                                                 {"WORLD_SIZE", "2"},
                                                 {"TORCHELASTIC_RUN_ID", "none"},
                                                 {"TORCHELASTIC_RESTART_COUNT", "3"},
                                                 {"TORCHELASTIC_USE_AGENT_STORE", "True"}};
  EXPECT_EQ(read(torchrun).agent_store_attempt, 3);
  torchrun["TORCHELASTIC_USE_AGENT_STORE"] = "False";
  EXPECT_EQ(read(torchrun).agent_store_attempt, std::nullopt) << "c10d/standalone: rank 0 hosts";
  torchrun["TORCHELASTIC_USE_AGENT_STORE"] = "True";
  torchrun.erase("TORCHELASTIC_RESTART_COUNT");
  try {
    read(torchrun);
    ADD_FAILURE() << "an agent store without an attempt was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("TORCHELASTIC_RESTART_COUNT"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(read({{"GLOO_SOCKET_IFNAME", "eth0,eth1"}}).gloo_socket_ifname, "eth0,eth1");
  EXPECT_EQ(read({}).gloo_socket_ifname, std::nullopt);
}

TEST(LauncherEnv, BadValuesNameTheVariable) {
  EXPECT_THROW(read({{"SLURM_PROCID", "x"}}), std::invalid_argument);
  try {
    read({{"SLURM_PROCID", "0"}, {"SLURM_JOB_NODELIST", "node[1-"}});
    ADD_FAILURE() << "a malformed SLURM_JOB_NODELIST was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("SLURM_JOB_NODELIST: host list 'node[1-'"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace fabriclab
