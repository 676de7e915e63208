// The `train` workload: every rank runs the data-parallel trainer
// (`fabriclab train`, trainer/), with the lab's parameters as its flags:
// key `width` -> `--width 128`, `timeout_s` -> `--timeout`, `_` -> `-`.
// Parameters: model, width, steps, epochs, batch, lr, momentum, seed,
// threads, eval_every, eval_at, timeout_s, data, bucket_cap_mb, first_bucket_mb
// (labs/SCHEMA.md).
#pragma once

#include "runner/workload/workload.h"

namespace fabriclab::runner {

const Workload& train_workload();

// The trainer's flags for a workload definition, in the order
// `fabriclab train` takes them (sorted by key).
std::vector<std::string> train_flags(const WorkloadDefinition& workload);

}  // namespace fabriclab::runner
