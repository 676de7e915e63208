// `fabriclab run NN --workload ddp`: the lab's scenarios with its `train`
// workload replaced by the same job in plain PyTorch DDP
// (runner/workload/ddp_example.h), in the lab and in every scenario (whose
// own parameters, e.g. lab 02's long-steps' step_compute_ms, carry over).
// "" or "train": the lab as written. InputError for anything else.
#pragma once

#include <string>

#include "runner/lab/lab_definition.h"

namespace fabriclab::cli {

void choose_workload(runner::LabDefinition& lab, const std::string& choice);

}  // namespace fabriclab::cli
