#include "netem/spec.h"

#include <cmath>
#include <cstdint>
#include <tuple>

namespace fabriclab::netem {

uint32_t scaled_probability(double fraction) {
  // tc's set_percent(): rint(per * UINT32_MAX), stored in a __u32.
  return static_cast<uint32_t>(std::rint(fraction * UINT32_MAX));
}

std::string distribution_name(Distribution d) {
  switch (d) {
    case Distribution::kNone:
      return "";
    case Distribution::kUniform:
      return "uniform";
    case Distribution::kNormal:
      return "normal";
    case Distribution::kPareto:
      return "pareto";
    case Distribution::kParetoNormal:
      return "paretonormal";
  }
  return "";
}

namespace {

uint32_t p(double fraction) { return scaled_probability(fraction); }

auto slot_key(const Slot& s) {
  return std::make_tuple(s.given, s.min_delay_ns, s.max_delay_ns, s.distribution, s.dist_delay_ns,
                         s.dist_jitter_ns, s.max_packets, s.max_bytes);
}

auto loss_key(const Spec& s) {
  const LossState& g = s.loss_state;
  const LossGemodel& e = s.loss_gemodel;
  bool state = s.loss_model == LossModel::kState;
  bool ge = s.loss_model == LossModel::kGemodel;
  return std::make_tuple(s.loss_model, p(s.loss), p(s.loss_corr), state ? p(g.p13) : 0u,
                         state ? p(g.p31) : 0u, state ? p(g.p32) : 0u, state ? p(g.p23) : 0u,
                         state ? p(g.p14) : 0u, ge ? p(e.p) : 0u, ge ? p(e.r) : 0u,
                         ge ? p(e.one_minus_h) : 0u, ge ? p(e.one_minus_k) : 0u);
}

auto key(const Spec& s) {
  return std::make_tuple(s.delay_us, s.jitter_us, p(s.delay_corr), s.distribution, loss_key(s),
                         s.limit_packets, p(s.duplicate), p(s.duplicate_corr), p(s.corrupt),
                         p(s.corrupt_corr), p(s.reorder), p(s.reorder_corr), s.reorder_gap,
                         s.rate_bytes_per_s, s.rate_packet_overhead, s.rate_cell_size,
                         s.rate_cell_overhead, s.ecn, slot_key(s.slot), s.corr_given,
                         s.reorder_given, s.corrupt_given);
}

}  // namespace

bool Spec::operator==(const Spec& other) const { return key(*this) == key(other); }

}  // namespace fabriclab::netem
