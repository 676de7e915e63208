#include "runner/scenario/job_places.h"

#include <algorithm>
#include <stdexcept>

namespace fabriclab::runner {

JobPlaces place_job(const LabNetwork& network, int ranks, const std::vector<int>& placement) {
  JobPlaces job;
  const std::vector<LocalRank> hosts = network.local_ranks();
  if (placement.empty()) {
    job.world = ranks > 0 ? std::min(ranks, network.world_size()) : network.world_size();
    job.master_addr = network.master_addr();
    for (const LocalRank& host : hosts)
      if (host.rank < job.world) job.local.push_back(host);
    return job;
  }
  job.world = static_cast<int>(placement.size());
  const auto host_at = [&](int index) -> const LocalRank& {
    for (const LocalRank& host : hosts)
      if (host.rank == index) return host;
    throw std::invalid_argument("placement: host r" + std::to_string(index) +
                                " is not a host of this lab network (placement needs every host "
                                "on this machine: namespace mode)");
  };
  job.master_addr = host_at(placement.front()).bind_addr;
  for (int rank = 0; rank < job.world; ++rank) {
    const int index = placement[static_cast<size_t>(rank)];
    LocalRank local = host_at(index);
    local.rank = rank;
    local.local_rank = static_cast<int>(std::count(placement.begin(), placement.begin() + rank, index));
    local.local_world_size = static_cast<int>(std::count(placement.begin(), placement.end(), index));
    job.local.push_back(std::move(local));
  }
  return job;
}

}  // namespace fabriclab::runner
