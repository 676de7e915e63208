// The `command` workload: bring your own job. Every rank runs the lab's
// command line -- a PyTorch DDP script, an nccl-tests-like binary, any
// program that reads torchrun's environment -- in its namespace, through
// `fabriclab job` (command_job.h), which gives it torchrun's environment
// plus GLOO_SOCKET_IFNAME, relays the steps it reports into the workload
// contract's events (workload.h) and exits as the command did. Nothing else
// changes: the watchdog, cleanup, counters and recording are the scenario
// runner's, as for `train` and `allreduce`.
//
// Parameters (labs/SCHEMA.md, "The command workload"):
//   command   the argv, a TOML array of strings; argv[0] is looked up in
//             PATH; it runs in the runner's working directory with the
//             run's privileges (a lab file from someone else is code you run)
//   steps     the steps each rank will report, when known (the live line's
//             "of N"); 0 or absent: unknown
// It trains no model fabriclab knows: from = "lab" model values are refused.
#pragma once

#include <string>
#include <vector>

#include "runner/workload/workload.h"

namespace fabriclab::runner {

const Workload& command_workload();

// The argv a kArgv parameter holds (its JSON text); std::invalid_argument
// when the text is not a non-empty array of strings.
std::vector<std::string> argv_of(const std::string& json_text);

}  // namespace fabriclab::runner
