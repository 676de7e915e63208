// The slowest of N links (lab 10): what one frame's delay is on average
// under a netem spec, and what the largest of N independent draws of it is
// on average -- the order statistic a step of N ranks waits for when each
// of its N links holds one frame of each ring phase.
//
// How: netem draws a delay as max(0, delay + jitter x t / 8192), t picked
// uniformly from the 4096 entries of the distribution's inverse-CDF table
// (netem's tabledist(); impairment_model.h, the same table the userspace
// backend draws from), or uniformly in [delay - jitter, delay + jitter)
// without a distribution (here as 4096 evenly spaced quantiles). With the
// M = 4096 delays sorted, d_1 <= ... <= d_M,
//
//     E[max of N] = sum_k d_k ((k/M)^N - ((k-1)/M)^N)
//
// exactly: (k/M)^N is the chance that all N draws are among the k smallest.
// N = 1 gives the mean.
//
// Not modelled, so nullopt: a delay correlation (draws not independent),
// slot, rate (a queue, not a draw). Loss is ignored. Pure, thread-safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace fabriclab::runner::report {

// The 4096 equally likely per-frame delays (ms, ascending) of `impair`
// (tc-netem words), or nullopt when it is empty or not modelled (above).
// Throws InputError for words netem does not know.
std::optional<std::vector<double>> frame_delays_ms(const std::string& impair);

// E[max of n draws] of equally likely `sorted_delays` (n >= 1).
double expected_max_of(const std::vector<double>& sorted_delays, int n);

}  // namespace fabriclab::runner::report
