// `fabriclab check NN`: can this machine run the lab? No training: the lab
// network is built (lab_network_up.h) and, for each scenario in turn,
// everything it sets is applied (impairments, queues, sysctls; the fabric's
// own links and sysctls once, with the network), read back from the kernel,
// and a little traffic crosses every path the scenario uses -- the impaired
// links, its neighbour flows' and flow probe's ends -- before its settings
// are removed. A delay must show in the round trip. Then the lab network
// goes.
//
// One line per scenario; a failure names the scenario, the setting, what the
// kernel answered and what to do. Nothing is left behind on any exit path
// (the same owners as `run`).
#pragma once

#include <string>
#include <vector>

#include "netem/impairment.h"

namespace fabriclab::runner {

struct LabCheckOptions {
  std::string lab_file;
  std::vector<std::string> scenarios;  // empty = all
  netem::BackendKind backend = netem::BackendKind::kAuto;
  bool quick = false;
};

// 0 when every scenario applied, read back and carried traffic; 1 otherwise.
// Throws InputError for a bad lab file or options, HostRefusesLab
// (host_preflight.h) for what this host does not allow, std::runtime_error
// when the lab network itself cannot be built.
int check_lab(const LabCheckOptions& options);

}  // namespace fabriclab::runner
