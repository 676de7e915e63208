// Where `fabriclab run --capture` listens for one scenario, and the file it
// writes: captures/<scenario>.pcap in the run directory.
//   namespace mode: eth0 inside the namespace of the scenario's impaired
//     rank (its first one; rank 0 when nothing is impaired): the link whose
//     packets the lab's lesson is about, both directions;
//   host mode: this host's --iface, filtered to the lab peers' addresses
//     (the host's other traffic -- ssh, updates -- is not the lab's).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "runner/capture/link_capture.h"

namespace fabriclab::runner {

class LabNetwork;

struct CaptureOptions {
  bool enabled = false;
  std::string run_dir;       // captures/ is made below it
  std::string host_device;   // host mode: --iface; "" = namespace mode
  std::vector<std::string> host_peers;  // host mode: every lab host's address
};

// The scenario's capture, or nullopt when capture is off or none of the
// scenario's ranks is here. `file` receives the path relative to run_dir.
std::optional<CaptureSpec> capture_spec_for(const CaptureOptions& options,
                                            const std::string& scenario,
                                            const std::vector<int>& impaired_ranks,
                                            const LabNetwork& network, std::string* file);

// "host A or host B": the BPF filter for a host-mode capture.
std::string peers_filter(const std::vector<std::string>& addresses);

}  // namespace fabriclab::runner
