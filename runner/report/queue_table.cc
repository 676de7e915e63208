#include "runner/report/queue_table.h"

#include <spdlog/fmt/fmt.h>

#include <cstdint>
#include <set>

#include "runner/report/result/result_parts.h"

namespace fabriclab::runner::report {
namespace {

// A result field by name (result/result_parts.h), "--" when it has none:
// counts print as integers, figures in `format`.
std::string cell(const ScenarioResult& result, const std::string& field, const char* format) {
  const nlohmann::json value = result_value(result, field);
  if (value.is_number_integer())
    return fmt::format(fmt::runtime(format), value.get<std::int64_t>());
  if (value.is_number()) return fmt::format(fmt::runtime(format), value.get<double>());
  return "--";
}

// Whether the scenario stepped: step times of one that never did are 0, not
// measured.
bool stepped_at_all(const ScenarioResult& result) {
  return result_count(result, "steps_completed").value_or(0) > 0 ||
         result_number(result, "median_step_ms").value_or(0) > 0;
}

// The queue's columns after the step times: each a result field.
struct FieldColumn {
  const char* field;
  const char* format;
};
constexpr FieldColumn kFieldColumns[] = {{"retransmits", "{}"},
                                         {"drops", "{}"},
                                         {"marks", "{}"},
                                         {"ce_packets", "{}"},
                                         {"ce_echoed", "{}"},
                                         {"paused_ms", "{:.0f}"},
                                         {"queue_p50_kb", "{:.0f}k"},
                                         {"queue_p99_kb", "{:.0f}k"},
                                         {"queue_max_kb", "{:.0f}k"}};

}  // namespace

std::string format_queue_table(const std::vector<ScenarioSummary>& summaries) {
  bool any_queue = false;
  std::set<std::string> flows;
  for (const ScenarioSummary& s : summaries) {
    any_queue = any_queue || result_count(s.result, "marks").has_value();
    for (const std::string& name : result_flows(s.result, "NAME_mbps")) flows.insert(name);
  }
  if (!any_queue) return "";

  constexpr size_t kQueueColumns = 13;  // then two per flow, wider
  const auto row = [&](const std::vector<std::string>& cells) {
    std::string line = fmt::format("{:<10} {:<10}", cells[0], cells[1]);
    for (size_t i = 2; i < cells.size(); ++i)
      line += fmt::format(i < kQueueColumns ? " {:>8}" : " {:>11}", cells[i]);
    return line + "\n";
  };
  std::vector<std::string> head = {"scenario", "status", "p50 ms", "p99 ms", "retx",
                                   "drops",    "marks",  "CE rx",  "ECE",    "pause ms",
                                   "q p50",    "q p99",  "q max"};
  for (const std::string& flow : flows) {
    head.push_back(flow.substr(0, 6) + " Mb/s");
    head.push_back(flow.substr(0, 6) + " rtt");
  }
  const std::string header = row(head);
  std::string rows;
  for (const ScenarioSummary& s : summaries) {
    const ScenarioResult& r = s.result;
    const bool stepped = stepped_at_all(r);
    std::vector<std::string> cells = {s.name, status_word(s),
                                      stepped ? cell(r, "median_step_ms", "{:.0f}") : "--",
                                      stepped ? cell(r, "p99_step_ms", "{:.0f}") : "--"};
    for (const FieldColumn& column : kFieldColumns)
      cells.push_back(cell(r, column.field, column.format));
    for (const std::string& flow : flows) {
      cells.push_back(cell(r, flow + "_mbps", "{:.1f}"));
      cells.push_back(cell(r, flow + "_rtt_ms", "{:.1f} ms"));
    }
    rows += row(cells);
  }
  std::string notes =
      "\np50/p99 ms: step time (slowest rank per step).  retx: TCP segments resent by every host\n"
      "on the switch (the job's ranks and the neighbours' host).\n"
      "drops: packets the queue dropped (full buffer; for ecn also the packets it could not "
      "mark).\n"
      "marks: packets it set CE on.  CE rx: CE-marked packets the ranks received (IpExtInCEPkts).\n"
      "ECE: segments acknowledged with an ECN echo (TcpExtTCPDeliveredCE, at the senders).\n"
      "pause ms: time the port held the links feeding it paused (PFC).  q: the queue depth\n"
      "arriving packets found, KiB (p50, p99) and the deepest it was.";
  if (!flows.empty())
    notes +=
        "\nThen each neighbour flow (iperf3, beside the job): its goodput, Mb/s, and its sender's\n"
        "mean smoothed round trip -- the time its packets waited anywhere on the path.";
  return "The queue: what the job paid, and what the switch port did\n\n" + header +
         std::string(header.size() - 1, '-') + "\n" + rows + notes + "\n";
}

}  // namespace fabriclab::runner::report
