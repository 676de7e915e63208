// An impairment, in the words of `tc qdisc ... netem` (see tc-netem(8)).
//
// Units are base units in the names (delay_us, rate_bytes_per_s); probabilities
// are fractions in [0, 1], kept exactly as tc computes them from the words
// (strtod(word) / 100). The parser and printer (netem/spec_parse.h) turn the
// words a network engineer types into this struct and back; the netlink
// encoder (netem/netlink/qdisc_message.h) turns it into exactly the bytes
// iproute2's tc would send.
//
// NOTE for maintainers: this is the shared contract between the parser, the
// netlink backend and the userspace backend. Extend it; do not rename fields
// the backends use (delay_us, jitter_us, delay_corr, loss, loss_corr, ...).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace fabriclab::netem {

// kNone: no `distribution` word (the kernel draws jitter uniformly).
// kUniform: the word `distribution uniform`: the same as kNone for the kernel
// (tc itself rejects it: it ships no uniform.dist); the others load the table
// NAME.dist that iproute2 ships.
enum class Distribution { kNone, kUniform, kNormal, kPareto, kParetoNormal };

// Which `loss` form was used. kRandom covers `loss P`, `loss random P` and
// no loss at all (loss == 0).
enum class LossModel { kRandom, kState, kGemodel };

// `loss state P13 [P31 [P32 [P23 P14]]]`: 4-state Markov model (GI). The
// defaults are tc's: p31 = 1 - p13, p32 = 0, p23 = 1, p14 = 0.
struct LossState {
  double p13 = 0, p31 = 1, p32 = 0, p23 = 1, p14 = 0;
};

// `loss gemodel P [R [1-H [1-K]]]`: Gilbert-Elliott. Defaults are tc's:
// r = 1 - p, 1-h = 1 (kernel h = 0), 1-k = 0.
struct LossGemodel {
  double p = 0, r = 1, one_minus_h = 1, one_minus_k = 0;
};

// `slot MIN [MAX] [packets N] [bytes N]` or
// `slot distribution NAME DELAY JITTER [packets N] [bytes N]`.
struct Slot {
  bool given = false;
  int64_t min_delay_ns = 0;
  int64_t max_delay_ns = 0;
  Distribution distribution = Distribution::kNone;  // set: the second form
  int64_t dist_delay_ns = 0;
  int64_t dist_jitter_ns = 0;
  int32_t max_packets = 0;  // 0 = no limit
  int32_t max_bytes = 0;
};

struct Spec {
  // delay TIME [JITTER [CORR%]] / distribution NAME
  uint64_t delay_us = 0;
  uint64_t jitter_us = 0;
  double delay_corr = 0;  // fraction
  Distribution distribution = Distribution::kNone;

  // loss [random] P [CORR]
  double loss = 0;  // fraction
  double loss_corr = 0;
  // loss state ... / loss gemodel ... (then `loss` above stays 0)
  LossModel loss_model = LossModel::kRandom;
  LossState loss_state;
  LossGemodel loss_gemodel;

  // limit PACKETS (0 = not given; the netlink backend derives one from rate x
  // delay, see netem/spec_limit.h; tc's own default is 1000)
  uint32_t limit_packets = 0;

  // duplicate P [CORR]
  double duplicate = 0;
  double duplicate_corr = 0;

  // corrupt P [CORR]
  double corrupt = 0;
  double corrupt_corr = 0;

  // reorder P [CORR] [gap N]. gap 0 = not given (tc then sends gap 1).
  double reorder = 0;
  double reorder_corr = 0;
  uint32_t reorder_gap = 0;

  // rate RATE [PACKETOVERHEAD [CELLSIZE [CELLOVERHEAD]]]; 0 = no rate word.
  // Bytes per second, as the kernel takes it (tc: bits / 8, truncated).
  uint64_t rate_bytes_per_s = 0;
  int32_t rate_packet_overhead = 0;
  uint32_t rate_cell_size = 0;
  int32_t rate_cell_overhead = 0;

  // ecn: mark CE instead of dropping (needs a loss model)
  bool ecn = false;

  Slot slot;

  // Which words were present although their value is zero: tc sends an
  // attribute for a present word even when it is all zeros, and `change`
  // treats an absent attribute as "keep the old value", so these matter for
  // the bytes. corr_given: some correlation number appeared (delay, loss,
  // reorder or corrupt; tc's duplicate correlation does not count, see
  // qdisc_message.cc).
  bool corr_given = false;
  bool reorder_given = false;
  bool corrupt_given = false;

  // Equal when they configure the kernel the same way: probabilities are
  // compared at the kernel's resolution (fraction x UINT32_MAX, rounded).
  bool operator==(const Spec& other) const;
  bool operator!=(const Spec& other) const { return !(*this == other); }
};

// "normal", "pareto", ...; "" for kNone.
std::string distribution_name(Distribution d);

// A probability as the kernel stores it: rint(fraction x UINT32_MAX).
uint32_t scaled_probability(double fraction);

}  // namespace fabriclab::netem
