// Host mode under srun: the hosts of the job step this task belongs to and
// this task's place among them, from the variables srun sets in every task.
//
//   `srun --nodes N --ntasks-per-node 1 fabriclab run NN --hosts slurm`
//
//   hosts  SLURM_STEP_NODELIST (the step's nodes), else SLURM_JOB_NODELIST
//          or SLURM_NODELIST, expanded (slurm_nodelist.h); the first leads
//   index  SLURM_NODEID: this node's place in that list
//   check  one task per node: SLURM_STEP_NUM_TASKS (else SLURM_NTASKS) equals
//          the number of hosts, since host mode runs one runner per machine
//
// Pure (the environment is passed in); thread-safe.
#pragma once

#include <string>
#include <vector>

#include "common/launcher_env.h"

namespace fabriclab {

struct SlurmStep {
  std::vector<std::string> hosts;  // node names, in Slurm's order
  int index = 0;                   // this task's node in `hosts`
};

// std::invalid_argument naming the variable and what was expected when a
// variable is missing (not under srun), malformed, out of range, or the step
// runs other than one task per node.
SlurmStep read_slurm_step(const GetEnv& getenv);

}  // namespace fabriclab
