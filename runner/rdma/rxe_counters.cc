#include "runner/rdma/rxe_counters.h"

#include <filesystem>
#include <fstream>

namespace fabriclab::runner::rdma {

RdmaCounters read_rdma_counters(const std::string& device, int port, const std::string& sysfs) {
  RdmaCounters counters;
  const std::filesystem::path dir =
      std::filesystem::path(sysfs) / device / "ports" / std::to_string(port) / "hw_counters";
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name == "lifespan") continue;  // the refresh interval, not a count
    std::ifstream in(entry.path());
    uint64_t value = 0;
    if (in >> value) counters[name] = value;
  }
  return counters;
}

RdmaCounters rdma_counters_since(const RdmaCounters& after, const RdmaCounters& before) {
  RdmaCounters since;
  for (const auto& [name, value] : after) {
    const auto was = before.find(name);
    const uint64_t start = was == before.end() ? 0 : was->second;
    since[name] = value >= start ? value - start : 0;
  }
  return since;
}

}  // namespace fabriclab::runner::rdma
