// Where a scenario's job runs: which of the lab network's hosts each of its
// ranks is launched on (labs/SCHEMA.md, "Placement").
//
//   no placement, `ranks` N   rank K on host rK, K < N (the first N hosts)
//   placement [r0, r0, r2]    rank 0 and 1 on host r0, rank 2 on host r2:
//                             ranks sharing a host share its namespace and
//                             lab address, so what they exchange goes over
//                             loopback and never reaches a lab link
//
// LOCAL_RANK and LOCAL_WORLD_SIZE count the ranks of one host, as torchrun
// does on one node; MASTER_ADDR is the address of rank 0's host.
// Pure; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "runner/topology/lab_network.h"

namespace fabriclab::runner {

struct JobPlaces {
  int world = 0;                 // WORLD_SIZE
  std::vector<LocalRank> local;  // the ranks this runner launches, by rank
  std::string master_addr;
};

// `ranks` 0 = every host; `placement` host indexes by rank (empty = none).
// std::invalid_argument when the placement names a host the network lacks
// or the job has more ranks than hosts without one.
JobPlaces place_job(const LabNetwork& network, int ranks, const std::vector<int>& placement);

}  // namespace fabriclab::runner
