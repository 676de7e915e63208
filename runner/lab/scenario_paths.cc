#include "runner/lab/scenario_paths.h"

#include <stdexcept>

namespace fabriclab::runner {

std::string host_of_job_rank(const ScenarioDefinition& scenario, int rank) {
  if (rank < 0 || rank >= scenario.ranks)
    throw std::invalid_argument("scenario '" + scenario.name + "' runs ranks 0 to " +
                                std::to_string(scenario.ranks - 1) + ", not " + std::to_string(rank));
  const int host = scenario.placement.empty() ? rank : scenario.placement[static_cast<size_t>(rank)];
  return "r" + std::to_string(host);
}

FabricPath job_rank_path(const LabDefinition& lab, const ScenarioDefinition& scenario, int from,
                         int to) {
  const std::string a = host_of_job_rank(scenario, from);
  const std::string b = host_of_job_rank(scenario, to);
  if (a == b) return FabricPath{{a}, 0, 0};  // one host: loopback
  return fabric_path(draw_fabric(lab.fabric.kind, lab.ranks), a, b);
}

}  // namespace fabriclab::runner
