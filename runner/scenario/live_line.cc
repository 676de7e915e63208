#include "runner/scenario/live_line.h"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <map>

#include "runner/report/result/uplink_load.h"

namespace fabriclab::runner {

namespace {

std::string human_bytes(double bytes) {
  if (bytes >= 1e9) return fmt::format("{:.2f} GB", bytes / 1e9);
  if (bytes >= 1e6) return fmt::format("{:.1f} MB", bytes / 1e6);
  return fmt::format("{:.0f} kB", bytes / 1e3);
}

// " marks 12 paused 340 ms depth 48 kB": the queues' story; "" without one.
std::string queue_status(const nlohmann::json& queues) {
  if (queues.empty()) return "";
  uint64_t marked = 0, depth = 0;
  double paused_ms = 0;
  for (const auto& [rank, port] : queues.items()) {
    marked += port.value("marked", uint64_t{0});
    paused_ms += port.value("paused_ms", 0.0);
    depth = std::max(depth, port.value("window_max_bytes", uint64_t{0}));
  }
  return fmt::format("  marks {}  paused {:.0f} ms  queue {}", marked, paused_ms,
                     human_bytes(static_cast<double>(depth)));
}

// "  hot uplink tor0-spine1 12.0 MB (71%)": on a fabric with routers, the
// ToR-spine link that has carried the most since the scenario began.
std::string hot_uplink(const CounterSample& counters) {
  std::map<std::string, std::int64_t> bytes_by_uplink;
  for (const auto& [link, sample] : counters.links) {
    if (!sample.uplink) continue;
    bytes_by_uplink[link] =
        static_cast<std::int64_t>(sample.counters.tx_bytes + sample.counters.rx_bytes);
  }
  const report::UplinkLoad load = report::uplink_load(bytes_by_uplink);
  if (!load.hottest_share) return "";
  return fmt::format("  hot uplink {} {} ({:.0f}%)", *load.hottest,
                     human_bytes(static_cast<double>(load.hottest_bytes)),
                     100.0 * *load.hottest_share);
}

// "  waiting r0 64% r1 3% ...": for jobs of 3 ranks or more (with two, both
// wait alike).
std::string waits(const std::vector<RankState>& states) {
  if (states.size() < 3) return "";
  std::string out = "  waiting";
  for (const RankState& st : states) {
    if (st.stepped_ms <= 0) return "";
    out += fmt::format(" r{} {:.0f}%", st.rank, st.waited_ms / st.stepped_ms * 100);
  }
  return out;
}

}  // namespace

std::string live_line(const std::string& scenario, const std::vector<RankState>& states,
                      int64_t planned_steps, double elapsed_s, const CounterSample& counters) {
  const int64_t done = steps_done(states);
  std::string eta = "--";
  if (done > 0 && planned_steps > done)
    eta = fmt::format("{:.0f} s", elapsed_s / done * (planned_steps - done));
  const RankState& r0 = states.front();
  // An allreduce sweep trains nothing: its figure is the last size's busbw.
  const std::string figure = r0.last_busbw >= 0 ? fmt::format("busbw {:.4f} GB/s", r0.last_busbw)
                                                : fmt::format("loss {:.3f}", r0.last_loss);
  return fmt::format(
      "  {:<10} step {:>4}/{:<4} {}  {:>6.0f} ms/step  {:>5.1f} s  ETA {:>5}  "
      "retx {}  drops {}{}  link {}{}{}",
      scenario, done, planned_steps, figure, r0.last_step_ms, elapsed_s, eta, counters.retransmits,
      counters.drops, queue_status(counters.queues),
      human_bytes(static_cast<double>(counters.link_bytes())), hot_uplink(counters), waits(states));
}

}  // namespace fabriclab::runner
