#include "runner/report/uplink_table.h"

#include <spdlog/fmt/fmt.h>

#include <set>

namespace fabriclab::runner::report {
namespace {

std::string megabytes(std::int64_t bytes) { return fmt::format("{:.1f}", static_cast<double>(bytes) / 1e6); }

}  // namespace

std::string format_uplink_table(const std::vector<ScenarioSummary>& summaries) {
  std::set<std::string> uplinks, flows;
  for (const ScenarioSummary& s : summaries) {
    for (const auto& [name, bytes] : s.result.bytes_by_uplink) uplinks.insert(name);
    for (const auto& [name, mbps] : s.result.neighbour_mbps) flows.insert(name);
  }
  if (uplinks.empty()) return "";

  const auto row = [](const std::vector<std::string>& cells) {
    std::string line = fmt::format("{:<12} {:<10}", cells[0], cells[1]);
    for (size_t i = 2; i < cells.size(); ++i) line += fmt::format(" {:>12}", cells[i]);
    return line + "\n";
  };
  std::vector<std::string> head = {"scenario", "status", "p50 ms", "p99 ms", "link MB"};
  for (const std::string& uplink : uplinks) head.push_back(uplink);
  head.push_back("hot uplink");
  head.push_back("hot spine");
  for (const std::string& flow : flows) head.push_back(flow.substr(0, 6) + " Mb/s");
  std::string out = "Bytes on the fabric (MB; uplinks both ways, read at the ToR)\n" + row(head);
  for (const ScenarioSummary& s : summaries) {
    const ScenarioResult& r = s.result;
    const bool stepped = r.steps_completed > 0 || r.median_step_ms > 0;
    std::vector<std::string> cells = {s.name, status_word(s),
                                      stepped ? fmt::format("{:.0f}", r.median_step_ms) : "--",
                                      stepped ? fmt::format("{:.0f}", r.p99_step_ms) : "--",
                                      r.link_bytes ? megabytes(*r.link_bytes) : "--"};
    for (const std::string& uplink : uplinks) {
      const auto bytes = r.bytes_by_uplink.find(uplink);
      cells.push_back(bytes == r.bytes_by_uplink.end() ? "--" : megabytes(bytes->second));
    }
    cells.push_back(r.hot_uplink.value_or("--"));
    cells.push_back(r.hot_spine.value_or("--"));
    for (const std::string& flow : flows) {
      const auto mbps = r.neighbour_mbps.find(flow);
      cells.push_back(mbps != r.neighbour_mbps.end() && mbps->second
                          ? fmt::format("{:.1f}", *mbps->second)
                          : "--");
    }
    out += row(cells);
  }
  return out;
}

}  // namespace fabriclab::runner::report
