#include "runner/report/per_rank_table.h"

#include <spdlog/fmt/fmt.h>

#include <algorithm>

#include "runner/report/wire_bytes_table.h"

namespace fabriclab::runner::report {
namespace {

// "r2 (last at the barrier in 11 of 11 steps; compute 1210 ms, the others 402)".
std::string straggler_line(const ScenarioSummary& s) {
  const RankView& view = s.ranks;
  if (view.ranks.size() < 2) return "";
  if (!view.straggler) {
    return fmt::format("{}: no straggler -- no rank was the last to reach the allreduce in 3/4 "
                       "of its {} steps\n",
                       s.name, view.steps_compared);
  }
  std::vector<double> others;
  const RankTimes* slow = nullptr;
  for (const RankTimes& t : view.ranks) {
    if (t.rank == *view.straggler)
      slow = &t;
    else
      others.push_back(t.compute_ms);
  }
  return fmt::format(
      "{}: straggler r{} -- last to reach the allreduce in {} of {} steps; compute {:.0f} ms, "
      "the others' median {:.0f} ms\n",
      s.name, *view.straggler, slow->last_arrivals, view.steps_compared, slow->compute_ms,
      median_of(others));
}

// "slow-link: slow link at r2 -- its connections' round trip 41.2 ms, the
// others' 1.1 ms" (or its retransmissions).
std::string slow_link_line(const ScenarioSummary& s) {
  const RankView& view = s.ranks;
  if (!view.slow_link) return "";
  double total_retx = 0;
  const RankTimes* slow = nullptr;
  for (const RankTimes& t : view.ranks) {
    total_retx += t.retransmits.value_or(0);
    if (t.rank == *view.slow_link) slow = &t;
  }
  if (view.slow_link_others_rtt_ms) {
    return fmt::format("{}: slow link at r{} -- TCP round trip of its connections {:.1f} ms, "
                       "the others' median {:.1f} ms\n",
                       s.name, slow->rank, slow->rtt_ms.value_or(0), *view.slow_link_others_rtt_ms);
  }
  return fmt::format("{}: slow link at r{} -- it retransmitted {:.0f} of the {:.0f} TCP segments "
                     "retransmitted\n",
                     s.name, slow->rank, slow->retransmits.value_or(0), total_retx);
}

std::string optional_number(const std::optional<double>& value, int decimals) {
  return value ? fmt::format("{:.{}f}", *value, decimals) : std::string("--");
}

}  // namespace

std::string format_per_rank_table(const std::vector<ScenarioSummary>& summaries) {
  std::string rows, stragglers;
  for (const ScenarioSummary& s : summaries) {
    for (const RankTimes& t : s.ranks.ranks) {
      rows += fmt::format("{:<14} {:>4} {:>11.1f} {:>9.1f} {:>8.0f}% {:>10} {:>9} {:>8} {:>6}\n",
                          s.name, "r" + std::to_string(t.rank), t.compute_ms, t.wait_ms,
                          t.wait_share * 100,
                          t.tx_bytes_per_step ? format_bytes(*t.tx_bytes_per_step) : "--",
                          fmt::format("{}/{}", t.last_arrivals, s.ranks.steps_compared),
                          optional_number(t.rtt_ms, 1),
                          optional_number(t.retransmits, 0));
    }
    stragglers += straggler_line(s) + slow_link_line(s);
  }
  if (rows.empty()) return "";
  return fmt::format("Per rank (medians over the steps after the first)\n\n"
                     "{:<14} {:>4} {:>11} {:>9} {:>9} {:>10} {:>9} {:>8} {:>6}\n",
                     "scenario", "rank", "compute ms", "wait ms", "waiting", "sent/step",
                     "last in", "rtt ms", "retx") +
         std::string(88, '-') + "\n" + rows + "\n" + stragglers +
         "\ncompute: forward and backward until the allreduce; wait: time blocked in the\n"
         "allreduce after it.  waiting: share of the rank's step time spent waiting.  last in:\n"
         "steps in which the rank reached the allreduce last (it waited least; the others\n"
         "waited for it).  rtt: median TCP round trip of the rank's connections to other ranks\n"
         "(what `ss -ti` shows).  retx: TCP segments its namespace retransmitted.  A slow worker\n"
         "is last in nearly every step with the longest compute; a slow link makes every rank\n"
         "wait alike, and shows in the round trip (delay) or the retransmissions (loss) of the\n"
         "rank that sends on it.\n";
}

}  // namespace fabriclab::runner::report
