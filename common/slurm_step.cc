#include "common/slurm_step.h"

#include <stdexcept>

#include "common/slurm_nodelist.h"

namespace fabriclab {
namespace {

// The first of `names` that is set, with the name it was found under.
std::pair<std::string, std::string> first_set(const GetEnv& getenv,
                                              std::initializer_list<const char*> names) {
  for (const char* name : names)
    if (const char* value = getenv(name); value != nullptr && *value != '\0') return {name, value};
  return {"", ""};
}

}  // namespace

SlurmStep read_slurm_step(const GetEnv& getenv) {
  const auto [list_name, list] =
      first_set(getenv, {"SLURM_STEP_NODELIST", "SLURM_JOB_NODELIST", "SLURM_NODELIST"});
  if (list.empty())
    throw std::invalid_argument(
        "--hosts slurm: SLURM_JOB_NODELIST is not set (expected to be started by srun: "
        "srun --nodes N --ntasks-per-node 1 fabriclab run NN --hosts slurm)");
  SlurmStep step;
  step.hosts = expand_slurm_nodelist(list);
  if (step.hosts.size() < 2)
    throw std::invalid_argument("--hosts slurm: " + list_name + "=" + list +
                                " is one node (expected at least two: srun --nodes 2 or more)");
  const std::optional<int> id = env_number(getenv, "SLURM_NODEID");
  if (!id)
    throw std::invalid_argument("--hosts slurm: SLURM_NODEID is not set (expected srun to set it "
                                "in every task)");
  step.index = *id;
  if (static_cast<size_t>(step.index) >= step.hosts.size())
    throw std::invalid_argument("SLURM_NODEID=" + std::to_string(*id) + ": expected 0.." +
                                std::to_string(step.hosts.size() - 1) + ", the nodes of " +
                                list_name);
  const auto [tasks_name, tasks] = first_set(getenv, {"SLURM_STEP_NUM_TASKS", "SLURM_NTASKS"});
  if (!tasks.empty() &&
      static_cast<size_t>(*env_number(getenv, tasks_name.c_str())) != step.hosts.size())
    throw std::invalid_argument(
        "--hosts slurm: " + tasks_name + "=" + tasks + " tasks on " +
        std::to_string(step.hosts.size()) +
        " nodes (expected one task per node: srun --ntasks-per-node 1; host mode runs one "
        "runner per machine, and the lab's ranks are spread by --ranks-per-host)");
  return step;
}

}  // namespace fabriclab
