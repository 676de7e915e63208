#include "runner/report/alpha_beta_fit.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace fabriclab::runner::report {

double alpha_beta_time_us(const AlphaBetaFit& fit, double bytes) {
  return fit.latency_us + bytes / fit.bytes_per_us;
}

std::optional<AlphaBetaFit> fit_alpha_beta(const std::vector<FitPoint>& points, int steps) {
  if (steps < 1) return std::nullopt;
  std::set<double> sizes;
  for (const FitPoint& p : points) {
    if (!(p.time_us > 0) || p.bytes < 0) return std::nullopt;
    sizes.insert(p.bytes);
  }
  if (sizes.size() < 2) return std::nullopt;
  // Minimise sum (c u_i + k v_i - 1)^2 with u = 1/t, v = B/t: the relative
  // error of c + k B against t.
  double uu = 0, uv = 0, vv = 0, u1 = 0, v1 = 0;
  for (const FitPoint& p : points) {
    const double u = 1 / p.time_us, v = p.bytes / p.time_us;
    uu += u * u;
    uv += u * v;
    vv += v * v;
    u1 += u;
    v1 += v;
  }
  const double det = uu * vv - uv * uv;
  double c = det != 0 ? (u1 * vv - v1 * uv) / det : -1;
  double k = det != 0 ? (uu * v1 - uv * u1) / det : 0;
  if (c < 0) {  // no latency term shows: the bytes alone
    c = 0;
    k = v1 / vv;
  }
  if (!(k > 0)) return std::nullopt;
  AlphaBetaFit fit;
  fit.steps = steps;
  fit.latency_us = c;
  fit.alpha_us = c / steps;
  fit.bytes_per_us = 1 / k;
  fit.crossover_bytes = c / k;
  for (const FitPoint& p : points) {
    const double predicted = alpha_beta_time_us(fit, p.bytes);
    fit.predicted_us.push_back(predicted);
    fit.worst_error = std::max(fit.worst_error, std::abs(predicted - p.time_us) / p.time_us);
  }
  return fit;
}

}  // namespace fabriclab::runner::report
