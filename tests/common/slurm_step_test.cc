// `--hosts slurm`: the step's hosts and this task's place, from srun's variables.
#include "common/slurm_step.h"

#include <gtest/gtest.h>

#include <map>
#include <stdexcept>
#include <string>

namespace fabriclab {
namespace {

SlurmStep read(const std::map<std::string, std::string>& env) {
  return read_slurm_step([&env](const char* name) -> const char* {
    const auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  });
}

std::string error(const std::map<std::string, std::string>& env) {
  try {
    read(env);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(SlurmStep, TheStepsNodesInSlurmsOrderAndThisNodesPlace) {
  const SlurmStep step = read({{"SLURM_JOB_NODELIST", "node[01-04]"},
                               {"SLURM_STEP_NODELIST", "node[02-04]"},
                               {"SLURM_NODEID", "2"},
                               {"SLURM_STEP_NUM_TASKS", "3"},
                               {"SLURM_NTASKS", "4"}});
  EXPECT_EQ(step.hosts, (std::vector<std::string>{"node02", "node03", "node04"}));
  EXPECT_EQ(step.index, 2);
}

TEST(SlurmStep, TheJobsNodesWhenTheStepsAreNotGiven) {
  const SlurmStep step = read({{"SLURM_JOB_NODELIST", "a1,b7"}, {"SLURM_NODEID", "0"}});
  EXPECT_EQ(step.hosts, (std::vector<std::string>{"a1", "b7"}));
  EXPECT_EQ(step.index, 0);
}

TEST(SlurmStep, NotUnderSrunSaysHowToStartIt) {
  EXPECT_NE(error({}).find("SLURM_JOB_NODELIST is not set (expected to be started by srun"),
            std::string::npos)
      << error({});
  EXPECT_NE(error({{"SLURM_JOB_NODELIST", "n[1-2]"}}).find("SLURM_NODEID is not set"),
            std::string::npos);
}

TEST(SlurmStep, RefusesOneNodeABadPlaceAndMoreThanOneTaskPerNode) {
  EXPECT_NE(error({{"SLURM_JOB_NODELIST", "n1"}, {"SLURM_NODEID", "0"}}).find("expected at least two"),
            std::string::npos);
  EXPECT_NE(error({{"SLURM_JOB_NODELIST", "n[1-2]"}, {"SLURM_NODEID", "2"}}).find("expected 0..1"),
            std::string::npos);
  EXPECT_NE(error({{"SLURM_JOB_NODELIST", "n[1-2]"}, {"SLURM_NODEID", "x"}})
                .find("SLURM_NODEID=x: expected a non-negative integer"),
            std::string::npos);
  const std::string two_each =
      error({{"SLURM_JOB_NODELIST", "n[1-2]"}, {"SLURM_NODEID", "0"}, {"SLURM_NTASKS", "4"}});
  EXPECT_NE(two_each.find("expected one task per node: srun --ntasks-per-node 1"), std::string::npos)
      << two_each;
  EXPECT_NE(error({{"SLURM_JOB_NODELIST", "n[3-1]"}, {"SLURM_NODEID", "0"}}), "(no error)");
}

}  // namespace
}  // namespace fabriclab
