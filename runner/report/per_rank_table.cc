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
    return fmt::format("{}: no straggler -- no rank was the last to reach the allreduce in most "
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

}  // namespace

std::string format_per_rank_table(const std::vector<ScenarioSummary>& summaries) {
  std::string rows, stragglers;
  for (const ScenarioSummary& s : summaries) {
    for (const RankTimes& t : s.ranks.ranks) {
      rows += fmt::format("{:<14} {:>4} {:>11.1f} {:>9.1f} {:>8.0f}% {:>10} {:>9}\n", s.name,
                          "r" + std::to_string(t.rank), t.compute_ms, t.wait_ms,
                          t.wait_share * 100,
                          t.tx_bytes_per_step ? format_bytes(*t.tx_bytes_per_step) : "--",
                          fmt::format("{}/{}", t.last_arrivals, s.ranks.steps_compared));
    }
    stragglers += straggler_line(s);
  }
  if (rows.empty()) return "";
  return fmt::format("Per rank (medians over the steps after the first)\n\n"
                     "{:<14} {:>4} {:>11} {:>9} {:>9} {:>10} {:>9}\n",
                     "scenario", "rank", "compute ms", "wait ms", "waiting", "sent/step",
                     "last in") +
         std::string(72, '-') + "\n" + rows + "\n" + stragglers +
         "\ncompute: forward and backward until the allreduce; wait: time blocked in the\n"
         "allreduce after it.  waiting: share of the rank's step time spent waiting.  last in:\n"
         "steps in which the rank reached the allreduce last (it waited least; the others\n"
         "waited for it).  A slow worker is last in nearly every step with the longest compute;\n"
         "a slow link makes every rank wait alike, so look at the link counters and TCP retx.\n";
}

}  // namespace fabriclab::runner::report
