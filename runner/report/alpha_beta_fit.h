// The alpha-beta model of one allreduce algorithm, fitted to a student's own
// sweep of message sizes (lab 11):
//
//   time(B) = alpha x steps + B / bandwidth
//
// `steps` is the algorithm's count of sequential exchanges on N ranks
// (common/allreduce_algorithms.h: ring 2(N-1), halving-doubling 2 log2 N);
// alpha is what one exchange costs whatever its size (the round trips), and
// bandwidth the rate at which the bytes then flow (algbw's asymptote: S / t
// for a large S).
//
// How: least squares on the relative error. The sizes span four orders of
// magnitude, so plain least squares on the times would fit the largest sizes
// and let the small ones -- where alpha shows -- be off by any factor.
// Instead it minimises sum_i ((c + k B_i - t_i) / t_i)^2 over c = alpha x
// steps and k = 1 / bandwidth: a linear least squares (weights 1 / t_i^2)
// whose 2x2 normal equations are solved directly. When that gives c < 0 (no
// latency shows) c is 0 and k is fitted alone; when k <= 0 (no size grows
// the time) there is no fit.
//
//   crossover_bytes  c / k: the size at which the two terms are equal. Below
//                    it the round trips decide the time (latency-bound),
//                    above it the bytes do (bandwidth-bound).
//   worst_error      max_i |predicted_i - t_i| / t_i over the sizes
//
// Pure functions, no state.
#pragma once

#include <optional>
#include <vector>

namespace fabriclab::runner::report {

struct FitPoint {
  double bytes = 0;
  double time_us = 0;  // measured
};

struct AlphaBetaFit {
  int steps = 0;
  double latency_us = 0;          // c = alpha x steps
  double alpha_us = 0;            // c / steps
  double bytes_per_us = 0;        // 1 / k: the fitted bandwidth (bytes per us = MB/s)
  double crossover_bytes = 0;     // c / k
  double worst_error = 0;         // relative
  std::vector<double> predicted_us;  // per point, in the points' order
};

// The model's time for `bytes`.
double alpha_beta_time_us(const AlphaBetaFit& fit, double bytes);

// Null with fewer than two distinct sizes, a time <= 0, steps < 1, or no
// size that grows the time.
std::optional<AlphaBetaFit> fit_alpha_beta(const std::vector<FitPoint>& points, int steps);

}  // namespace fabriclab::runner::report
