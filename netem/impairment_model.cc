#include "netem/impairment_model.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/input_error.h"
#include "netem/netlink/distribution_table.h"

namespace fabriclab::netem {

namespace {

constexpr int kTableSize = 4096;       // entries iproute2's .dist files hold
constexpr int kGeneratorSize = 16384;  // TABLESIZE of iproute2's generators
constexpr double kDistScale = 8192;    // NETEM_DIST_SCALE

uint32_t scaled(double fraction) {
  return static_cast<uint32_t>(
      std::lrint(std::clamp(fraction, 0.0, 1.0) * std::numeric_limits<uint32_t>::max()));
}

int16_t clip16(double v) { return static_cast<int16_t>(std::clamp(v, -32768.0, 32767.0)); }

// x such that Phi(x) = p, by bisection on erf: exact enough and obviously
// right, and only 4096 values are ever needed.
double inverse_normal_cdf(double p) {
  double lo = -10, hi = 10;
  for (int i = 0; i < 80; ++i) {
    double mid = (lo + hi) / 2;
    if (0.5 + 0.5 * std::erf(mid / std::sqrt(2.0)) < p) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return (lo + hi) / 2;
}

// iproute2's normal.c keeps, for each generator slot i, the largest x with
// rint(16384 * Phi(x)) == i, i.e. x = Phi^-1((i + 0.5) / 16384).
double normal_entry(int i) { return inverse_normal_cdf((i + 0.5) / kGeneratorSize); }

// iproute2's pareto generator (a = 3, shifted and scaled to unit spread).
double pareto_entry(int k) {
  double u = (65536.0 - 16.0 * k) / 65536.0;
  double v = (1.0 / std::pow(u, 1.0 / 3.0) - 1.5) * (4.0 / 3.0) * kDistScale;
  return std::min(v, 32767.0);
}

// Kernel states of the 4-state loss model and Gilbert-Elliott.
enum { kTxInGap = 0, kTxInBurst, kLostInBurst, kLostInGap };
enum { kGood = 0, kBad };

}  // namespace

std::vector<int16_t> distribution_table(Distribution distribution) {
  std::vector<int16_t> table;
  if (distribution == Distribution::kNone || distribution == Distribution::kUniform) return table;
  table.reserve(kTableSize);
  for (int k = 0; k < kTableSize; ++k) {
    switch (distribution) {
      case Distribution::kNormal:
        table.push_back(clip16(std::rint(normal_entry(4 * k) * kDistScale)));
        break;
      case Distribution::kPareto:
        table.push_back(clip16(std::rint(pareto_entry(k))));
        break;
      case Distribution::kParetoNormal: {
        int norm = static_cast<int>(std::rint(normal_entry(4 * k) * kDistScale));
        int par = static_cast<int>(std::rint(pareto_entry(k)));
        table.push_back(clip16((norm + 3 * par) / 4));  // C integer division, as iproute2
        break;
      }
      default:
        break;
    }
  }
  return table;
}

void ImpairmentModel::check_supported(const Spec& spec) {
  auto refuse = [](const std::string& word, const std::string& why) {
    throw InputError("netem spec word '" + word + "': the userspace backend cannot reproduce it (" +
                     why +
                     "); expected only delay, distribution, loss, reorder, rate and limit, or use "
                     "--backend netem on a kernel with sch_netem");
  };
  if (spec.duplicate > 0) refuse("duplicate", "NFQUEUE can accept or drop a packet, not copy it");
  if (spec.corrupt > 0 || spec.corrupt_given)
    refuse("corrupt", "packets are queued without their bytes");
  if (spec.ecn) refuse("ecn", "marking CE needs the packet's bytes");
  if (spec.slot.given) refuse("slot", "not implemented in userspace");
}

ImpairmentModel::ImpairmentModel(const Spec& spec, uint64_t seed)
    : spec_(spec), prng_(static_cast<std::mt19937::result_type>(seed ^ (seed >> 32))) {
  // netem seeds each correlation's `last` with a fresh draw.
  delay_cor_ = {scaled(spec.delay_corr), fresh()};
  loss_cor_ = {scaled(spec.loss_corr), fresh()};
  reorder_cor_ = {scaled(spec.reorder_corr), fresh()};
  loss_threshold_ = scaled(spec.loss);
  reorder_threshold_ = scaled(spec.reorder);
  // tc sends gap 1 for a bare `reorder P`; gap 0 in the kernel means "off".
  if (spec.reorder > 0 || spec.reorder_given) gap_ = spec.reorder_gap ? spec.reorder_gap : 1;
  if (spec.jitter_us > 0 && spec.distribution != Distribution::kNone &&
      spec.distribution != Distribution::kUniform) {
    // The very table tc would hand the kernel, when iproute2's file is here;
    // else the same table from its formula (within 1/8192 of a jitter).
    try {
      table_ = netlink::load_distribution(spec.distribution);
    } catch (const std::exception&) {
    }
    if (table_.empty()) table_ = distribution_table(spec.distribution);
  }
}

bool ImpairmentModel::keeps_order() const {
  return spec_.jitter_us == 0 && (gap_ == 0 || reorder_threshold_ == 0);
}

uint32_t ImpairmentModel::fresh() { return static_cast<uint32_t>(prng_()); }

uint32_t ImpairmentModel::correlated(Correlated& state) {
  if (state.rho == 0) return fresh();
  uint64_t value = fresh();
  uint64_t rho = static_cast<uint64_t>(state.rho) + 1;
  uint32_t answer = static_cast<uint32_t>((value * ((1ull << 32) - rho) + state.last * rho) >> 32);
  state.last = answer;
  return answer;
}

bool ImpairmentModel::loss_event() {
  switch (spec_.loss_model) {
    case LossModel::kRandom:
      // netem: `q->loss && q->loss >= get_crandom(...)`; no draw when off.
      return loss_threshold_ != 0 && loss_threshold_ >= correlated(loss_cor_);
    case LossModel::kState: {
      const LossState& s = spec_.loss_state;
      uint32_t a1 = scaled(s.p13), a2 = scaled(s.p31), a3 = scaled(s.p32);
      uint32_t a4 = scaled(s.p14), a5 = scaled(s.p23);
      uint32_t rnd = fresh();
      // The kernel's loss_4state() with contiguous ranges (the 2026 fix).
      switch (state_) {
        case kTxInGap:
          if (rnd < a4) {
            state_ = kLostInGap;
            return true;
          }
          if (rnd < static_cast<uint64_t>(a1) + a4) {
            state_ = kLostInBurst;
            return true;
          }
          return false;
        case kTxInBurst:
          if (rnd < a5) {
            state_ = kLostInBurst;
            return true;
          }
          return false;
        case kLostInBurst:
          if (rnd < a3) {
            state_ = kTxInBurst;
            return false;
          }
          if (rnd < static_cast<uint64_t>(a2) + a3) {
            state_ = kTxInGap;
            return false;
          }
          return true;
        default:  // kLostInGap
          state_ = kTxInGap;
          return false;
      }
    }
    case LossModel::kGemodel: {
      const LossGemodel& g = spec_.loss_gemodel;
      if (state_ == kGood) {
        if (fresh() < scaled(g.p)) state_ = kBad;
        return fresh() < scaled(g.one_minus_k);
      }
      if (fresh() < scaled(g.r)) state_ = kGood;
      return fresh() > scaled(1.0 - g.one_minus_h);
    }
  }
  return false;
}

int64_t ImpairmentModel::draw_delay_ns() {
  const int64_t mu = static_cast<int64_t>(spec_.delay_us) * 1000;
  const int64_t sigma = static_cast<int64_t>(spec_.jitter_us) * 1000;
  if (sigma == 0) return mu;
  uint32_t rnd = correlated(delay_cor_);
  if (table_.empty()) {  // netem's default: uniform in [mu - sigma, mu + sigma)
    return static_cast<int64_t>(rnd % static_cast<uint64_t>(2 * sigma)) + mu - sigma;
  }
  int64_t t = table_[rnd % table_.size()];
  // tabledist(): sigma split into whole and fractional NETEM_DIST_SCALE parts
  // so the product cannot overflow, rounded half away from zero.
  const int64_t scale = static_cast<int64_t>(kDistScale);
  int64_t x = (sigma % scale) * t;
  x += x >= 0 ? scale / 2 : -scale / 2;
  return x / scale + (sigma / scale) * t + mu;
}

PacketFate ImpairmentModel::next() {
  PacketFate fate;
  if (loss_event()) {
    fate.drop = true;
    return fate;
  }
  if (gap_ == 0 || counter_ + 1 < gap_ || reorder_threshold_ < correlated(reorder_cor_)) {
    fate.delay_ns = std::max<int64_t>(0, draw_delay_ns());
    ++counter_;
  } else {
    fate.delay_ns = 0;  // reordered: out at once, ahead of the held ones
    counter_ = 0;
  }
  return fate;
}

}  // namespace fabriclab::netem
