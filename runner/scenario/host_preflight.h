// Before a lab builds anything: what this host would refuse of the settings
// the run needs (LinkSettingKind::host_refusal: a congestion control the
// host does not let namespaces choose, ...). A lab whose story depends on a
// setting must not quietly run without it, nor fail halfway through.
#pragma once

#include <stdexcept>
#include <vector>

#include "runner/lab/lab_definition.h"

namespace fabriclab::runner {

// Thrown with every refusal, one per line, each naming the setting, the
// host's value and what to do.
class HostRefusesLab : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

void refuse_what_this_host_cannot_run(const LabDefinition& lab,
                                      const std::vector<const ScenarioDefinition*>& scenarios);

}  // namespace fabriclab::runner
