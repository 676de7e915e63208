// The baseline of `fabriclab bench allreduce --baseline pytorch`: PyTorch's
// own Gloo allreduce (torch.distributed.all_reduce, backend gloo, in place;
// Debian's python3-torch) between the same lab namespaces, at the same sizes,
// warmup and iterations, timed and checked as fabriclab's ranks are
// (trainer/bench/gloo_allreduce_baseline.py says how). The bench prints its
// time, algbw, busbw and #wrong beside fabriclab's in-place columns, and the
// ratio of the two (doc/allreduce_bench.md).
//
// Errors: InputError (exit 2) when `python` cannot import torch.distributed
// with Gloo, or the script is missing; std::runtime_error when a rank fails
// (from wait_for_ranks, with the end of its log).
#pragma once

#include <string>

#include "common/temp_dir.h"

namespace fabriclab::runner::bench {

// This source tree's trainer/bench/gloo_allreduce_baseline.py.
std::string default_gloo_baseline_script();

// The version of torch `python` imports ("1.13.1"), after checking that its
// torch.distributed has Gloo and that `script` exists. InputError naming
// --python (and python3-torch) otherwise. Runs `python` once, in this
// network namespace (a second or two: importing torch).
std::string check_pytorch_baseline(const std::string& python, const std::string& script,
                                   const TempDir& tmp);

}  // namespace fabriclab::runner::bench
