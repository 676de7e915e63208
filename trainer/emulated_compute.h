// How long a step sleeps to emulate compute it does not do (--step-compute-ms,
// an accelerator's step time; --compute-slowdown F, a slow worker), as a pure
// function of the times the trainer measured, so its sizing is tested on
// numbers rather than by timing steps on a shared CPU.
//
// The step's real compute is its forward and (not yet run, so estimated by)
// the step before's backward; the first step guesses the backward at 2x the
// forward (pass a negative last_backward_ms). The step is brought up to
// step_compute_ms, then a slow worker's factor multiplies it:
//   sleep = factor x max(real, step_compute_ms) - real   (>= 0)
#pragma once

#include <algorithm>

namespace fabriclab::trainer {

inline double emulated_sleep_ms(double forward_ms, double last_backward_ms,
                                double step_compute_ms, double factor) {
  const double backward_ms = last_backward_ms >= 0 ? last_backward_ms : 2 * forward_ms;
  const double real_ms = forward_ms + backward_ms;
  return factor * std::max(real_ms, step_compute_ms) - real_ms;
}

}  // namespace fabriclab::trainer
