#include "runner/report/uplink_table.h"

#include <spdlog/fmt/fmt.h>

#include <cstdint>
#include <optional>
#include <set>

#include "runner/report/result/result_parts.h"

namespace fabriclab::runner::report {
namespace {

// Bytes as MB, "--" for none (a JSON value: the row's, by name).
std::string megabytes(const nlohmann::json& bytes) {
  if (!bytes.is_number()) return "--";
  return fmt::format("{:.1f}", static_cast<double>(bytes.get<std::int64_t>()) / 1e6);
}

}  // namespace

std::string format_uplink_table(const std::vector<ScenarioSummary>& summaries) {
  std::set<std::string> uplinks, flows;
  for (const ScenarioSummary& s : summaries) {
    const nlohmann::json by_uplink = result_value(s.result, "uplinks");
    if (by_uplink.is_object())
      for (const auto& [name, bytes] : by_uplink.items()) uplinks.insert(name);
    for (const std::string& name : result_flows(s.result, "NAME_mbps")) flows.insert(name);
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
    const bool stepped = result_count(r, "steps_completed").value_or(0) > 0 ||
                         result_number(r, "median_step_ms").value_or(0) > 0;
    const auto ms = [&](const char* field) {
      return stepped ? fmt::format("{:.0f}", result_number(r, field).value_or(0)) : "--";
    };
    std::vector<std::string> cells = {s.name, status_word(s), ms("median_step_ms"),
                                      ms("p99_step_ms"), megabytes(result_value(r, "link_bytes"))};
    const nlohmann::json by_uplink = result_value(r, "uplinks");
    for (const std::string& uplink : uplinks)
      cells.push_back(megabytes(by_uplink.is_object() ? by_uplink.value(uplink, nlohmann::json())
                                                      : nlohmann::json()));
    cells.push_back(result_word(r, "hot_uplink").value_or("--"));  // names the row holds
    cells.push_back(result_word(r, "hot_spine").value_or("--"));
    for (const std::string& flow : flows) {
      const std::optional<double> mbps = result_number(r, flow + "_mbps");
      cells.push_back(mbps ? fmt::format("{:.1f}", *mbps) : "--");
    }
    out += row(cells);
  }
  return out;
}

}  // namespace fabriclab::runner::report
