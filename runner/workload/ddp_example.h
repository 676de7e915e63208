// `fabriclab run NN --workload ddp`: a lab's `train` workload as the same
// job written in plain PyTorch DDP (trainer/python/ddp_train.py), run by
// the `command` workload (command_workload.h) under the lab's own scenarios.
// The trainer's parameters become the script's flags (width -> --width 512,
// timeout_s -> --timeout); those the script does not do are refused, naming
// the parameter, rather than silently dropped.
#pragma once

#include <string>

#include "runner/workload/workload.h"

namespace fabriclab::runner {

// The python that has Debian's python3-torch (scripts/setup.sh): a `python3`
// earlier on PATH (a virtualenv, pyenv) may not have torch.
constexpr const char* kDebianPython = "/usr/bin/python3";

// `train` (a scenario's, with its overrides) -> the `command` running
// `script` with the same job; std::invalid_argument for another kind or a
// parameter the script does not have.
WorkloadDefinition ddp_example_workload(const WorkloadDefinition& train, const std::string& script);

}  // namespace fabriclab::runner
