// Where a scenario's ranks sit on the lab's fabric, and the path between
// two of them: rank K on host placement[K] (rK without a placement), the
// path between hosts as runner/topology/fabric_paths.h draws it. Two ranks
// on one host share it: an empty path, no switch, nothing on the fabric.
// Pure; thread-safe.
#pragma once

#include <string>

#include "runner/lab/lab_definition.h"
#include "runner/topology/fabric_paths.h"

namespace fabriclab::runner {

// The host name of `rank` in `scenario` ("r2").
std::string host_of_job_rank(const ScenarioDefinition& scenario, int rank);

// The path from rank `from` to rank `to` of `scenario` on `lab`'s fabric.
// std::invalid_argument for a rank the scenario does not run.
FabricPath job_rank_path(const LabDefinition& lab, const ScenarioDefinition& scenario, int from,
                         int to);

}  // namespace fabriclab::runner
