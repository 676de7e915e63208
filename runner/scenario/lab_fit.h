// Whether this machine can run a lab, read from the lab file and the host
// without building anything (`fabriclab doctor`'s labs section; `fabriclab
// check NN` is the proof by doing): the backend its impairments would get,
// what the host refuses of its settings (host_preflight.h), the tools its
// scenarios call, and how long a step of its job computes here against the
// compute time the lab models (`step_compute_ms`).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "runner/lab/lab_definition.h"

namespace fabriclab::runner {

enum class LabFitVerdict { kRuns, kRunsWithCaveat, kCannot };

struct LabFit {
  LabFitVerdict verdict = LabFitVerdict::kRuns;
  std::vector<std::string> notes;  // why: one sentence each, the caveats and refusals first
  std::optional<double> step_compute_ms;  // measured here (train workloads), median of a few steps
};

// `measure_compute`: run a few steps of the lab's job here, on synthetic
// data, one rank (a second or two per lab).
LabFit fit_lab(const LabDefinition& lab, bool measure_compute);

const char* verdict_words(LabFitVerdict verdict);  // "runs", "runs with a caveat", "cannot"

}  // namespace fabriclab::runner
