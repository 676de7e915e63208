// Per-rank truth (runner/report/rank_times.h): whom the others waited for, and why.
#include <optional>

#include "runner/report/result/parts.h"
#include "runner/report/result/scenario_events.h"

namespace fabriclab::runner::report {
namespace {

using nlohmann::json;

// The rank whose round trip is longer than every other's (not twice the
// others' median and 5 ms, as slow_link asks: a paused node's neighbour
// waits on its pauses too, and its round trip grows nearly as much; lab 12's
// runs: 13.6 ms against 12.3 at load 30, 14.2 against 8.4 at load 21).

std::optional<int> longest_rtt(const RankView& view) {
  const RankTimes* first = nullptr;
  const RankTimes* second = nullptr;
  for (const RankTimes& t : view.ranks) {
    if (!t.rtt_ms) continue;
    if (!first || *t.rtt_ms > *first->rtt_ms) {
      second = first;
      first = &t;
    } else if (!second || *t.rtt_ms > *second->rtt_ms) {
      second = &t;
    }
  }
  if (!first || !second || *first->rtt_ms <= *second->rtt_ms) return std::nullopt;
  return first->rank;
}

// rank_times.h names them; others_wait_share is the mean wait share of
// every rank but the one named slow (the straggler, else the slow link's).
void compute_ranks(const ScenarioEvents& in, ScenarioResult& result) {
  if (!has_steps(in.events)) return;
  const RankView& view = in.ranks;
  result.straggler = view.straggler;
  result.slow_link = view.slow_link;
  result.longest_rtt = longest_rtt(view);
  const std::optional<int> slow = view.straggler ? view.straggler : view.slow_link;
  double share_sum = 0;
  int others = 0;
  for (const RankTimes& t : view.ranks) {
    if (slow && t.rank == *slow) continue;
    share_sum += t.wait_share;
    ++others;
  }
  if (others > 0 && view.ranks.size() > 1) result.others_wait_share = share_sum / others;
}

}  // namespace

ResultPart ranks_part() {
  using K = FieldKind;
  using R = ScenarioResult;
  return {
      "ranks",
      "",
      {
          field("straggler", "rank", K::kRank, "the rank the others waited for at the barrier",
                &R::straggler),
          field("slow_link", "rank", K::kRank, "the rank whose link the network evidence names",
                &R::slow_link),
          field("longest_rtt", "rank", K::kRank,
                "the rank whose round trip is longer than every other's", &R::longest_rtt),
          field("others_wait_share", "share", K::kNumber,
                "the other ranks' mean share of step time spent waiting", &R::others_wait_share),
      },
      compute_ranks};
}

}  // namespace fabriclab::runner::report
