#include "runner/report/port_table.h"

#include <spdlog/fmt/fmt.h>

#include <cstdint>

namespace fabriclab::runner::report {
namespace {

std::string count(const nlohmann::json& port, const char* key) {
  const nlohmann::json v = port.value(key, nlohmann::json());
  return v.is_number() ? fmt::format("{}", v.get<std::int64_t>()) : "--";
}

std::string figure(const nlohmann::json& port, const char* key, double scale, const char* unit) {
  const nlohmann::json v = port.value(key, nlohmann::json());
  return v.is_number() ? fmt::format("{:.0f}{}", v.get<double>() / scale, unit) : "--";
}

}  // namespace

std::string format_port_table(const std::vector<ScenarioSummary>& summaries) {
  const auto row = [](const std::vector<std::string>& c) {
    return fmt::format("{:<10} {:<8} {:>9} {:>8} {:>7} {:>9} {:>7} {:>7} {:>7}\n", c[0], c[1],
                       c[2], c[3], c[4], c[5], c[6], c[7], c[8]);
  };
  std::string rows;
  for (const ScenarioSummary& s : summaries) {
    if (!s.ports.is_object()) continue;
    for (const auto& [rank, port] : s.ports.items()) {
      if (!port.is_object()) continue;
      rows += row({s.name, "to " + rank, count(port, "packets"), count(port, "marked"),
                   count(port, "pauses"), figure(port, "paused_ms", 1, ""),
                   figure(port, "depth_p50_bytes", 1024, "k"), figure(port, "depth_p99_bytes", 1024, "k"),
                   figure(port, "depth_max_bytes", 1024, "k")});
    }
  }
  if (rows.empty()) return "";
  const std::string header =
      row({"scenario", "port", "packets", "marks", "pauses", "pause ms", "q p50", "q p99", "q max"});
  return "The switch's ports: which one marked, which one paused its senders\n\n" + header +
         std::string(header.size() - 1, '-') + "\n" + rows +
         "\nport: the switch's port toward that rank (what it receives, from every sender).\n"
         "packets: what entered its queue.  marks: packets it set CE on.  pauses: times it\n"
         "passed XOFF and paused the links with bytes in it (PFC pause frames); pause ms: how\n"
         "long it held them paused in all.  q: the depth arriving packets found, KiB (p50, p99)\n"
         "and the deepest it was.\n";
}

}  // namespace fabriclab::runner::report
