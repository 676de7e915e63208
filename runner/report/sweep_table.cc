#include "runner/report/sweep_table.h"

#include <spdlog/fmt/fmt.h>

#include "runner/report/result/result_parts.h"

namespace fabriclab::runner::report {
namespace {

std::string or_dashes(const std::optional<double>& value, const char* format) {
  return value ? fmt::format(fmt::runtime(format), *value) : "--";
}

}  // namespace

std::optional<double> job_extra_share(const std::optional<double>& step_slowdown) {
  if (!step_slowdown) return std::nullopt;
  return *step_slowdown - 1;
}

std::optional<double> flow_goodput_lost_share(const std::optional<double>& flow_slowdown) {
  if (!flow_slowdown || *flow_slowdown <= 0) return std::nullopt;
  return 1 - 1 / *flow_slowdown;
}

std::string format_sweep_table(const std::vector<ScenarioSummary>& summaries) {
  std::string rows;
  for (const ScenarioSummary& s : summaries) {
    if (s.sweep.empty()) continue;
    const auto field = [&](const char* name) { return result_number(s.result, name); };
    const auto percent = [](const std::optional<double>& share) {
      return share ? std::optional<double>(*share * 100) : std::nullopt;
    };
    const auto extra = percent(job_extra_share(field("step_slowdown")));
    const auto lost = percent(flow_goodput_lost_share(field("flow_slowdown")));
    const auto resent = percent(field("flow_retx_share"));
    rows += fmt::format("{:<12} {:>7} {:<10} {:>7} {:>7} {:>7} {:>9} {:>10} {:>9}\n", s.name,
                        fmt::format("{}", s.sweep_value), status_word(s),
                        or_dashes(field("mean_step_ms"), "{:.1f}"),
                        or_dashes(field("step_slowdown"), "{:.2f}"), or_dashes(extra, "{:+.1f}"),
                        or_dashes(field("flow_gbps"), "{:.3f}"), or_dashes(lost, "{:.0f}"),
                        or_dashes(resent, "{:.2f}"));
  }
  if (rows.empty()) return "";
  const std::string header =
      fmt::format("{:<12} {:>7} {:<10} {:>7} {:>7} {:>7} {:>9} {:>10} {:>9}\n", "scenario", "value",
                  "status", "step ms", "x base", "job +%", "flow Gb/s", "goodput -%", "resent %");
  return "The sweep: the job beside one TCP flow on the same link\n\n" + header +
         std::string(header.size() - 1, '-') + "\n" + rows +
         "\nstep ms: the job's mean step time after the first (slowest rank).  x base: step ms / the sweep\n"
         "baseline's.  job +%: the job's extra step time.\n"
         "flow: one iperf3 TCP flow over the same impaired link after the job (runner/scenario/\n"
         "flow_probe.h).  goodput -%: the goodput it lost against the baseline's flow.\n"
         "resent %: the share of its bytes TCP sent twice (retransmits x MSS / bytes sent).\n";
}

}  // namespace fabriclab::runner::report
