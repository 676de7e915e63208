#include "runner/report/slowest_of_n_table.h"

#include <spdlog/fmt/fmt.h>

#include <optional>

namespace fabriclab::runner::report {
namespace {

std::string ms(const std::optional<double>& value, const char* format = "{:.1f}") {
  return value ? fmt::format(fmt::runtime(format), *value) : "--";
}

// How much of each step is this machine's CPU (result/cpu_part.cc): "" when
// no scenario measured it (recordings from before cpu_ms).
std::string format_cpu_block(const std::vector<ScenarioSummary>& summaries) {
  bool any = false;
  for (const ScenarioSummary& s : summaries) any = any || s.result.cpu_floor_ms;
  if (!any) return "";
  std::string text = fmt::format("\n{:<10} {:>3} {:>9} {:>9} {:>9} {:>9} {:>9}\n", "scenario", "N",
                                 "p50 ms", "cpu/rank", "queued", "cpu floor", "p50/floor");
  for (const ScenarioSummary& s : summaries) {
    const ScenarioResult& r = s.result;
    if (!r.cpu_floor_ms) continue;
    const std::string n = s.wire.world_size ? fmt::format("{:.0f}", *s.wire.world_size) : "--";
    text += fmt::format("{:<10} {:>3} {:>9} {:>9} {:>9} {:>9} {:>9}\n", s.name, n,
                        ms(r.median_step_ms), ms(r.cpu_ms), ms(r.queued_ms), ms(r.cpu_floor_ms),
                        ms(r.cpu_floor_multiple, "{:.2f}"));
  }
  text +=
      "cpu/rank, queued: what one rank's threads ran on a core, and sat ready with no core\n"
      "free, per step (the kernel's schedstat); cpu floor: every rank's cpu summed over the\n"
      "machine's cores, the shortest step it allows. p50/floor flat across N: the step is\n"
      "this machine's CPU, and the network adds nothing that grows with N.\n";
  return text;
}

}  // namespace

std::string format_slowest_of_n_table(const std::vector<ScenarioSummary>& summaries) {
  bool any_tail = false;
  for (const ScenarioSummary& s : summaries) any_tail = any_tail || s.result.link_delay_ms;
  if (!any_tail) return "";

  const auto row = [](const std::vector<std::string>& cells) {
    std::string line = fmt::format("{:<10} {:>3} {:<10}", cells[0], cells[1], cells[2]);
    for (size_t i = 3; i < cells.size(); ++i) line += fmt::format(" {:>9}", cells[i]);
    return line + "\n";
  };
  std::string text = row({"scenario", "N", "status", "p50 ms", "p99 ms", "frame ms", "max-N ms",
                          "pred max", "pred mean", "p50/pred"});
  for (const ScenarioSummary& s : summaries) {
    const ScenarioResult& r = s.result;
    const bool stepped = r.steps_completed > 0 && r.median_step_ms > 0;
    std::optional<double> ratio;
    if (stepped && r.predicted_step_ms && *r.predicted_step_ms > 0)
      ratio = r.median_step_ms / *r.predicted_step_ms;
    const std::string n = s.wire.world_size ? fmt::format("{:.0f}", *s.wire.world_size) : "--";
    text += row({s.name, n, status_word(s), stepped ? ms(r.median_step_ms) : "--",
                 stepped ? ms(r.p99_step_ms) : "--", ms(r.link_delay_ms), ms(r.slowest_link_ms),
                 ms(r.predicted_step_ms), ms(r.mean_model_step_ms), ms(ratio, "{:.2f}")});
  }
  text +=
      "frame ms: one frame's mean delay on a link; max-N ms: the mean of the largest of N\n"
      "frames' delays (F(x)^N over netem's table). pred max = the baseline's p50 + 2(N-1) x\n"
      "max-N (each ring phase waits for its slowest link); pred mean = the same with frame ms.\n";
  return text + format_cpu_block(summaries);
}

}  // namespace fabriclab::runner::report
