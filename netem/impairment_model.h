// What sch_netem would decide for each packet, reproduced in userspace: the
// userspace backend asks this model, packet by packet, whether to drop it and
// how long to hold it.
//
// It follows the kernel's netem_enqueue() step by step (net/sched/sch_netem.c)
// so the two backends impair alike:
//   - one 32-bit random stream; correlated draws use netem's get_crandom():
//     next = (fresh * (2^32 - rho) + last * rho) >> 32, rho = corr x 2^32;
//   - loss: `random` (drop when P >= a correlated draw), `state` (the 4-state
//     Markov model) and `gemodel` (Gilbert-Elliott), drawn before the delay;
//   - delay: netem's tabledist(): uniform in [delay - jitter, delay + jitter)
//     without a distribution, else delay + jitter x t with t read from the
//     same inverse-CDF tables iproute2 ships (normal, pareto, paretonormal:
//     4096 entries, scaled by NETEM_DIST_SCALE, clipped at +-4): read from
//     iproute2's .dist files when installed, else computed from the formulas
//     of iproute2's generators (then within 1 unit of the shipped files);
//   - reorder P [CORR] [gap N]: after gap-1 delayed packets, one packet goes
//     out at once with probability P (netem puts it at the head of its queue).
//
// What this model cannot do from userspace, and the backend refuses with an
// InputError: duplicate, corrupt, ecn and slot (they need the packet's bytes
// or slotted release; see userspace_backend.h). `rate` is not a per-packet
// draw: the queue worker serializes packets itself (rate_serializer.h).
//
// Deterministic: the same spec and seed give the same sequence of decisions.
// Not thread-safe (one queue worker owns it).
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "netem/spec.h"

namespace fabriclab::netem {

// The decision for one packet.
struct PacketFate {
  bool drop = false;
  int64_t delay_ns = 0;  // hold this long after arrival (>= 0)
};

class ImpairmentModel {
 public:
  // `spec` must have passed check_supported(). `seed` fixes the random stream.
  ImpairmentModel(const Spec& spec, uint64_t seed);

  // The fate of the next packet, consuming random draws exactly as netem does.
  PacketFate next();

  // True when no packet can overtake another (no jitter, no reorder): the
  // backend may then release packets with one batch verdict.
  bool keeps_order() const;

  // Throws InputError naming the first word this model cannot reproduce.
  static void check_supported(const Spec& spec);

 private:
  struct Correlated {
    uint32_t rho = 0;   // corr x 2^32
    uint32_t last = 0;  // the previous draw
  };
  uint32_t fresh();
  uint32_t correlated(Correlated& state);
  bool loss_event();
  int64_t draw_delay_ns();

  Spec spec_;
  std::mt19937 prng_;
  Correlated delay_cor_, loss_cor_, reorder_cor_;
  uint32_t loss_threshold_ = 0;     // loss x UINT32_MAX
  uint32_t reorder_threshold_ = 0;  // reorder x UINT32_MAX
  uint32_t gap_ = 0;                // 0: no reordering
  uint32_t counter_ = 0;            // packets since the last reordered one
  int state_ = 0;                   // Markov state of `loss state|gemodel`
  std::vector<int16_t> table_;      // inverse CDF, empty for uniform
};

// The inverse-CDF table iproute2 ships for `distribution NAME` (4096 entries
// in units of 1/8192 of jitter), computed from its generator's formula; empty
// for kNone and kUniform. The fallback when no .dist file is installed.
std::vector<int16_t> distribution_table(Distribution distribution);

}  // namespace fabriclab::netem
