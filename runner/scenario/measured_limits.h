// A scenario's stall and deadline limits in seconds for this run: its
// relative limits (`deadline = "6x clean"`, runner/lab/relative_limit.h)
// times what the scenario they name took here, or its absolute ones
// (`deadline_s`, `stall_s`) when that scenario did not complete in this run.
#pragma once

#include <map>
#include <string>

#include "runner/lab/lab_definition.h"

namespace fabriclab::runner {

// Seconds each completed scenario took in this run (launch to end).
using MeasuredTimes = std::map<std::string, double>;

struct ResolvedLimits {
  ScenarioDefinition scenario;  // the definition with deadline_s and stall_s for this run
  std::string line;             // "limits: deadline 6x clean = 72.4 s, stall 20 s"; "" if none is relative
};

ResolvedLimits resolve_limits(const ScenarioDefinition& scenario, const MeasuredTimes& measured);

}  // namespace fabriclab::runner
