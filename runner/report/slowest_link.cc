#include "runner/report/slowest_link.h"

#include <algorithm>
#include <cmath>

#include "netem/impairment_model.h"
#include "netem/spec_parse.h"

namespace fabriclab::runner::report {
namespace {

constexpr double kDistScale = 8192;  // NETEM_DIST_SCALE: table entries per jitter
constexpr int kTableSize = 4096;     // entries of iproute2's tables

}  // namespace

std::optional<std::vector<double>> frame_delays_ms(const std::string& impair) {
  if (impair.empty()) return std::nullopt;
  const netem::Spec spec = netem::parse_spec(impair);
  if (spec.delay_corr > 0 || spec.slot.given || spec.rate_bytes_per_s > 0) return std::nullopt;
  const double delay_ms = static_cast<double>(spec.delay_us) / 1000;
  const double jitter_ms = static_cast<double>(spec.jitter_us) / 1000;
  std::vector<double> delays;
  delays.reserve(kTableSize);
  const bool uniform = spec.distribution == netem::Distribution::kNone ||
                       spec.distribution == netem::Distribution::kUniform;
  if (jitter_ms == 0) {
    delays.assign(kTableSize, delay_ms);
  } else if (uniform) {
    for (int k = 0; k < kTableSize; ++k)
      delays.push_back(delay_ms - jitter_ms + 2 * jitter_ms * (k + 0.5) / kTableSize);
  } else {
    for (const int16_t t : netem::distribution_table(spec.distribution))
      delays.push_back(delay_ms + jitter_ms * t / kDistScale);
  }
  // netem holds a negative draw for no time at all.
  for (double& d : delays) d = std::max(0.0, d);
  std::sort(delays.begin(), delays.end());
  return delays;
}

double expected_max_of(const std::vector<double>& sorted_delays, int n) {
  if (sorted_delays.empty() || n < 1) return 0;
  const double m = static_cast<double>(sorted_delays.size());
  double expected = 0;
  double below = 0;  // (k-1 / M)^n
  for (size_t k = 1; k <= sorted_delays.size(); ++k) {
    const double upto = std::pow(static_cast<double>(k) / m, n);
    expected += sorted_delays[k - 1] * (upto - below);
    below = upto;
  }
  return expected;
}

}  // namespace fabriclab::runner::report
