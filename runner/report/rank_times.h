// Per-rank truth of one scenario (issue 16; lab 05): what each rank spent
// computing and waiting, and which rank the others waited for. From the
// trainer's step events alone (doc/metrics.md), so a replay computes the same:
//
//   compute_ms, wait_ms   medians over the rank's steps after the first (the
//                         first carries start-up): `compute_ms` and `comm_ms`,
//                         the time it sat in the allreduce after its backward
//   wait_share            sum of comm_ms / sum of step_ms over those steps
//   tx_bytes_per_step     mean `tx_bytes` over those steps (null: not measured)
//   last_arrivals         in how many steps (after the first, reported by
//                         every rank) this rank waited least: it reached the
//                         allreduce last, and every other rank waited for it
//
// The straggler is the rank that arrived last in more than half of those
// steps; none when arrivals vary (no rank holds the others up, or the holdup
// is on a link, which slows every rank's allreduce alike: the per-rank link
// counters and TCP retransmits tell those apart). Pure functions, thread-safe.
#pragma once

#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

namespace fabriclab::runner::report {

struct RankTimes {
  int rank = 0;
  int steps = 0;  // steps counted (after the first)
  double compute_ms = 0;
  double wait_ms = 0;
  double wait_share = 0;
  std::optional<double> tx_bytes_per_step;
  int last_arrivals = 0;
};

struct RankView {
  std::vector<RankTimes> ranks;  // by rank
  int steps_compared = 0;        // steps every rank reported (after the first)
  std::optional<int> straggler;  // the rank last at the barrier in most steps
};

RankView rank_view(const std::vector<nlohmann::json>& events);

}  // namespace fabriclab::runner::report
