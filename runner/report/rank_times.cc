#include "runner/report/rank_times.h"

#include <cstdlib>
#include <map>

#include "runner/report/scenario_summary.h"

namespace fabriclab::runner::report {
namespace {

using nlohmann::json;

struct StepOfRank {
  double step_ms = 0;
  double compute_ms = 0;
  double comm_ms = 0;
  std::optional<double> tx_bytes;
};

double number(const json& event, const char* key) {
  auto it = event.find(key);
  return it != event.end() && it->is_number() ? it->get<double>() : 0;
}

constexpr double kSlowLinkRttFactor = 2;
// Sub-millisecond round trips jitter past 1 ms on a loaded machine (a clean
// run in host mode here read 1.3 ms against 0.2); a link worth naming adds more.
constexpr double kSlowLinkRttMarginMs = 5;
constexpr double kSlowLinkMinRetransmits = 20;

// Per rank from the `counters` events: the median of its round-trip samples
// and its last retransmission count.
void add_network_evidence(const std::vector<json>& events, std::vector<RankTimes>& ranks) {
  std::map<int, std::vector<double>> rtts;
  std::map<int, double> retransmits;
  for (const json& event : events) {
    if (event.value("event", std::string()) != "counters") continue;
    const auto per_rank = event.find("ranks");
    if (per_rank == event.end() || !per_rank->is_object()) continue;
    for (const auto& [name, r] : per_rank->items()) {
      if (name.size() < 2 || name[0] != 'r' || !r.is_object()) continue;
      const int rank = std::atoi(name.c_str() + 1);
      if (r.contains("rtt_ms") && r["rtt_ms"].is_number()) rtts[rank].push_back(r["rtt_ms"].get<double>());
      if (r.contains("retransmits") && r["retransmits"].is_number())
        retransmits[rank] = r["retransmits"].get<double>();
    }
  }
  for (RankTimes& t : ranks) {
    if (rtts.count(t.rank)) t.rtt_ms = median_of(rtts[t.rank]);
    if (retransmits.count(t.rank)) t.retransmits = retransmits[t.rank];
  }
}

// Names the slow link in `view` (rank_times.h gives the rules).
void find_slow_link(RankView& view) {
  const std::vector<RankTimes>& ranks = view.ranks;
  if (ranks.size() < 2) return;
  const RankTimes* top = nullptr;
  for (const RankTimes& t : ranks)
    if (t.rtt_ms && (!top || *t.rtt_ms > *top->rtt_ms)) top = &t;
  if (top) {
    std::vector<double> others;
    for (const RankTimes& t : ranks)
      if (&t != top && t.rtt_ms) others.push_back(*t.rtt_ms);
    const double m = median_of(others);
    if (!others.empty() && *top->rtt_ms >= kSlowLinkRttFactor * m &&
        *top->rtt_ms - m >= kSlowLinkRttMarginMs) {
      view.slow_link = top->rank;
      view.slow_link_others_rtt_ms = m;
      return;
    }
  }
  double total = 0;
  const RankTimes* most = nullptr;
  for (const RankTimes& t : ranks) {
    if (!t.retransmits) continue;
    total += *t.retransmits;
    if (!most || *t.retransmits > *most->retransmits) most = &t;
  }
  if (most && total >= kSlowLinkMinRetransmits && 2 * *most->retransmits > total)
    view.slow_link = most->rank;
}

}  // namespace

RankView rank_view(const std::vector<json>& events) {
  // rank -> step -> its numbers; step 1 is left out (start-up).
  std::map<int, std::map<int, StepOfRank>> steps;
  for (const json& event : events) {
    if (event.value("event", std::string()) != "step") continue;
    const int step = static_cast<int>(number(event, "step"));
    if (step <= 1) continue;
    StepOfRank s;
    s.step_ms = number(event, "step_ms");
    s.comm_ms = number(event, "comm_ms");
    s.compute_ms = event.contains("compute_ms") ? number(event, "compute_ms") : s.step_ms - s.comm_ms;
    if (event.contains("tx_bytes") && event["tx_bytes"].is_number())
      s.tx_bytes = event["tx_bytes"].get<double>();
    steps[static_cast<int>(number(event, "rank"))][step] = s;
  }

  RankView view;
  std::map<int, int> last_arrivals;
  if (!steps.empty()) {
    // Steps every rank reported: who waited least, i.e. arrived last.
    for (const auto& [step, first] : steps.begin()->second) {
      std::optional<int> last;
      double least_wait = 0;
      bool everyone = true, tied = false;
      for (const auto& [rank, by_step] : steps) {
        const auto found = by_step.find(step);
        if (found == by_step.end()) {
          everyone = false;
          break;
        }
        const double wait = found->second.comm_ms;
        if (last && wait == least_wait) tied = true;
        if (!last || wait < least_wait) {
          last = rank;
          least_wait = wait;
          tied = false;
        }
      }
      if (!everyone) continue;
      ++view.steps_compared;
      if (!tied) ++last_arrivals[*last];  // a tie: nobody came last
    }
  }

  for (const auto& [rank, by_step] : steps) {
    RankTimes t;
    t.rank = rank;
    std::vector<double> compute, wait;
    double step_sum = 0, wait_sum = 0, tx_sum = 0;
    int tx_steps = 0;
    for (const auto& [step, s] : by_step) {
      compute.push_back(s.compute_ms);
      wait.push_back(s.comm_ms);
      step_sum += s.step_ms;
      wait_sum += s.comm_ms;
      if (s.tx_bytes) {
        tx_sum += *s.tx_bytes;
        ++tx_steps;
      }
    }
    t.steps = static_cast<int>(by_step.size());
    t.compute_ms = median_of(compute);
    t.wait_ms = median_of(wait);
    t.wait_share = step_sum > 0 ? wait_sum / step_sum : 0;
    if (tx_steps > 0) t.tx_bytes_per_step = tx_sum / tx_steps;
    t.last_arrivals = last_arrivals[rank];
    if (steps.size() > 1 && t.last_arrivals * 4 >= view.steps_compared * 3 && t.last_arrivals > 0)
      view.straggler = rank;
    view.ranks.push_back(t);
  }
  add_network_evidence(events, view.ranks);
  find_slow_link(view);
  return view;
}

}  // namespace fabriclab::runner::report
