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
// The straggler is the rank that arrived last in at least 3/4 of those steps
// (on a loaded machine one rank of equals may come last in half of them by
// chance: 6 of 11 in a clean run here); none when arrivals vary (no rank holds the others up, or the holdup
// is on a link, which slows every rank's allreduce alike).
//
// A slow link shows in the network instead, in the runner's `counters`
// events (recordings/FORMAT.md): each rank's median TCP round trip over its
// connections to other ranks (rtt_ms: the median of the samples taken while
// it ran) and the segments its namespace retransmitted. The slow link is the
// rank whose round trip is at least twice the others' median and 5 ms above
// it (every connection of that rank crosses its link; of the others', one);
// else the rank that retransmitted more than half of all segments (at least
// 20): a lossy link makes its sender retransmit. Pure functions, thread-safe.
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
  std::optional<double> rtt_ms;       // null: no counters with round trips
  std::optional<double> retransmits;  // null: no counters for it
};

struct RankView {
  std::vector<RankTimes> ranks;  // by rank
  int steps_compared = 0;        // steps every rank reported (after the first)
  std::optional<int> straggler;  // the rank last at the barrier in >= 3/4 of the steps
  std::optional<int> slow_link;  // the rank whose link the network evidence names
  // When its round trip named it: the other ranks' median round trip it
  // stood out against (nullopt when its retransmissions named it).
  std::optional<double> slow_link_others_rtt_ms;
};

RankView rank_view(const std::vector<nlohmann::json>& events);

}  // namespace fabriclab::runner::report
