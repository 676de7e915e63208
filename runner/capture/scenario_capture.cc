#include "runner/capture/scenario_capture.h"

#include <algorithm>
#include <filesystem>

#include "runner/topology/lab_network.h"

namespace fabriclab::runner {

std::string peers_filter(const std::vector<std::string>& addresses) {
  std::string filter;
  for (const std::string& address : addresses)
    filter += (filter.empty() ? "host " : " or host ") + address;
  return filter;
}

std::optional<CaptureSpec> capture_spec_for(const CaptureOptions& options,
                                            const std::string& scenario,
                                            const std::vector<int>& impaired_ranks,
                                            const LabNetwork& network, std::string* file) {
  if (!options.enabled) return std::nullopt;
  const std::vector<LocalRank> here = network.local_ranks();
  if (here.empty()) return std::nullopt;
  CaptureSpec spec;
  if (!options.host_device.empty()) {
    spec.device = options.host_device;
    spec.filter = peers_filter(options.host_peers);
  } else {
    const int wanted = impaired_ranks.empty() ? 0 : impaired_ranks.front();
    auto rank = std::find_if(here.begin(), here.end(),
                             [&](const LocalRank& r) { return r.rank == wanted; });
    if (rank == here.end()) rank = here.begin();
    spec.device = "eth0";  // every rank's lab device (topology.cc kRankDevice)
    spec.netns_fd = rank->netns_fd;
    spec.netns_label = rank->netns_label;
  }
  const std::filesystem::path dir = std::filesystem::path(options.run_dir) / "captures";
  std::filesystem::create_directories(dir);
  *file = "captures/" + scenario + ".pcap";
  spec.path = (std::filesystem::path(options.run_dir) / *file).string();
  return spec;
}

}  // namespace fabriclab::runner
