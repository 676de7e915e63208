#include "runner/process/launch_spec.h"

namespace fabriclab::runner {

std::map<std::string, std::string> torchrun_environment(const std::string& master_addr,
                                                        int master_port, int rank, int world_size,
                                                        int local_rank, int local_world_size) {
  return {
      {"MASTER_ADDR", master_addr},
      {"MASTER_PORT", std::to_string(master_port)},
      {"RANK", std::to_string(rank)},
      {"WORLD_SIZE", std::to_string(world_size)},
      {"LOCAL_RANK", std::to_string(local_rank)},
      {"LOCAL_WORLD_SIZE", std::to_string(local_world_size)},
      {"GROUP_RANK", "0"},
      {"ROLE_RANK", std::to_string(rank)},
  };
}

}  // namespace fabriclab::runner
