#include "runner/report/summary_table.h"

#include <algorithm>
#include <cctype>

#include <spdlog/fmt/fmt.h>

namespace fabriclab::runner::report {
namespace {

constexpr const char* kAbsent = "--";

std::string upper(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return text;
}

// Shortens `text` to `width` columns, marking the cut with "~".
std::string fit(const std::string& text, size_t width) {
  if (text.size() <= width) return text;
  if (width == 0) return "";
  return text.substr(0, width - 1) + "~";
}

// Step times: one decimal below 100 ms, whole milliseconds above.
std::string format_ms(double ms) {
  return ms < 100 ? fmt::format("{:.1f}", ms) : fmt::format("{:.0f}", ms);
}

std::string format_wall(const ScenarioSummary& summary) {
  if (summary.result.steps_completed == 0 && summary.result.wall_s == 0) return kAbsent;
  return fmt::format("{:.1f}", summary.result.wall_s);
}

template <typename T, typename Format>
std::string or_absent(const std::optional<T>& value, Format format) {
  return value ? format(*value) : std::string(kAbsent);
}

struct Column {
  const char* header_top;  // a two-line header keeps number columns narrow
  const char* header;
  bool left_aligned;
};

constexpr Column kColumns[] = {
    {"", "scenario", true}, {"", "condition", true}, {"", "status", true},     {"wall", "s", false},
    {"x", "clean", false},  {"p50", "ms", false},    {"p99", "ms", false},     {"net", "ms", false},
    {"comm", "%", false},
    {"TCP", "retx", false}, {"", "drops", false},    {"final", "loss", false},
};
// An allreduce sweep (the `allreduce` workload) has no loss and no step
// times worth a column: its columns are nccl-tests' figures instead.
constexpr Column kSweepColumns[] = {
    {"", "scenario", true}, {"", "condition", true},  {"", "status", true},
    {"wall", "s", false},   {"busbw", "GB/s", false}, {"x", "base", false},
    {"avg bw", "GB/s", false}, {"", "#wrong", false}, {"TCP", "retx", false},
    {"", "drops", false},
};
constexpr size_t kColumnCount = sizeof(kColumns) / sizeof(kColumns[0]);
constexpr size_t kSweepColumnCount = sizeof(kSweepColumns) / sizeof(kSweepColumns[0]);
constexpr size_t kConditionColumn = 1;

// GB/s with three significant digits: lab links are Mbit/s, 0.0118 GB/s.
std::string format_gb_per_s(double value) {
  if (value >= 100) return fmt::format("{:.0f}", value);
  if (value >= 1) return fmt::format("{:.2f}", value);
  return fmt::format("{:.3g}", value);
}

bool is_sweep(const std::vector<ScenarioSummary>& summaries) {
  for (const ScenarioSummary& summary : summaries)
    if (summary.result.busbw_gb_per_s) return true;
  return false;
}
constexpr const char* kGap = "  ";

}  // namespace

std::string format_status(const ScenarioSummary& summary) {
  const std::string status = upper(status_word(summary));
  if (summary.status == rundir::ScenarioStatus::kCompleted ||
      summary.status == rundir::ScenarioStatus::kSkipped || !summary.steps_planned) {
    return status;
  }
  return fmt::format("{} {}/{}", status, summary.result.steps_completed, *summary.steps_planned);
}

std::string format_summary_table(const std::vector<ScenarioSummary>& summaries) {
  using Row = std::vector<std::string>;
  const bool sweep = is_sweep(summaries);
  const Column* columns = sweep ? kSweepColumns : kColumns;
  const size_t column_count = sweep ? kSweepColumnCount : kColumnCount;
  std::vector<Row> rows;
  rows.push_back({});
  for (size_t i = 0; i < column_count; ++i) rows.back().push_back(columns[i].header_top);
  rows.push_back({});
  for (size_t i = 0; i < column_count; ++i) rows.back().push_back(columns[i].header);

  for (const ScenarioSummary& summary : summaries) {
    const ScenarioResult& r = summary.result;
    const bool measured = !(r.steps_completed == 0 && r.wall_s == 0);
    const auto count = [](std::int64_t n) { return fmt::format("{}", n); };
    if (sweep) {
      rows.push_back({
          summary.name,
          summary.condition.empty() ? std::string(kAbsent) : summary.condition,
          format_status(summary),
          format_wall(summary),
          or_absent(r.busbw_gb_per_s, format_gb_per_s),
          or_absent(r.busbw_ratio, [](double x) { return fmt::format("{:.2f}", x); }),
          or_absent(r.avg_busbw_gb_per_s, format_gb_per_s),
          or_absent(r.wrong, count),
          or_absent(r.retransmits, count),
          or_absent(r.drops, count),
      });
      continue;
    }
    rows.push_back({
        summary.name,
        summary.condition.empty() ? std::string(kAbsent) : summary.condition,
        format_status(summary),
        format_wall(summary),
        summary.slowdown_at_least
            ? fmt::format(">{:.1f}", *summary.slowdown_at_least)
            : or_absent(r.slowdown, [](double x) { return fmt::format("{:.2f}", x); }),
        measured ? format_ms(r.median_step_ms) : kAbsent,
        measured ? format_ms(r.p99_step_ms) : kAbsent,
        measured ? or_absent(r.median_network_ms, format_ms) : kAbsent,
        measured ? fmt::format("{:.0f}", r.comm_share * 100) : kAbsent,
        or_absent(r.retransmits, [](std::int64_t n) { return fmt::format("{}", n); }),
        or_absent(r.drops, [](std::int64_t n) { return fmt::format("{}", n); }),
        or_absent(r.final_loss, [](double loss) { return fmt::format("{:.3f}", loss); }),
    });
  }

  std::vector<size_t> widths(column_count, 0);
  for (const Row& row : rows) {
    for (size_t i = 0; i < column_count; ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  // Fit in kTableWidth by shortening the condition (the longest free text).
  size_t total = 0;
  for (size_t width : widths) total += width;
  total += (column_count - 1) * std::string(kGap).size();
  if (total > static_cast<size_t>(kTableWidth)) {
    const size_t excess = total - kTableWidth;
    widths[kConditionColumn] =
        std::max<size_t>(9, widths[kConditionColumn] - std::min(excess, widths[kConditionColumn]));
  }

  std::string out;
  auto append_row = [&](const Row& row) {
    std::string line;
    for (size_t i = 0; i < column_count; ++i) {
      const std::string cell = fit(row[i], widths[i]);
      if (i > 0) line += kGap;
      line += columns[i].left_aligned ? fmt::format("{:<{}}", cell, widths[i])
                                       : fmt::format("{:>{}}", cell, widths[i]);
    }
    line.erase(line.find_last_not_of(' ') + 1);
    out += line + "\n";
  };
  append_row(rows[0]);
  append_row(rows[1]);
  size_t rule_width = 0;
  for (size_t width : widths) rule_width += width;
  rule_width += (column_count - 1) * std::string(kGap).size();
  out += std::string(std::min<size_t>(rule_width, kTableWidth), '-') + "\n";
  for (size_t i = 2; i < rows.size(); ++i) append_row(rows[i]);

  if (sweep) {
    out += fmt::format(
        "\nwall: first size's start to last size's end.  busbw: the largest size's ({}) "
        "out-of-place\nbus bandwidth, nccl-tests' algbw x 2(n-1)/n with the time averaged "
        "over ranks\n(doc/allreduce_bench.md).  x base: busbw / its baseline's busbw.  avg bw: "
        "nccl-tests'\n\"Avg bus bandwidth\" over every size and place.  #wrong: result elements "
        "that differ\nfrom the expected sum.  TCP retx: segments retransmitted.  drops: packets "
        "the impairment\ndropped.\n",
        [&] {
          for (const ScenarioSummary& s : summaries)
            if (s.result.largest_size) return fmt::format("{} B", *s.result.largest_size);
          return std::string("--");
        }());
  } else {
  out +=
      "\nwall: first step start to last step end.  x clean: wall / clean's wall (>N: at least;\n"
      "the scenario ran out of time).  p50 (median), p99: step time of the slowest rank per step.\n"
      "net: median time the allreduce itself took (the last rank to reach it waited only for the\n"
      "network).  comm: share of step time blocked in allreduce.  TCP retx: segments retransmitted.\n"
      "drops: packets the impairment dropped.\n"
      "final loss: mean over ranks of the last step's training loss.\n";
  }
  // A scenario measured against another yardstick than clean says so.
  const bool has_clean = std::any_of(summaries.begin(), summaries.end(),
                                     [](const ScenarioSummary& s) { return s.name == "clean"; });
  if (!has_clean) out += "x clean: not shown where a scenario names no baseline (no clean scenario)\n";
  for (const ScenarioSummary& summary : summaries) {
    if (!summary.baseline || *summary.baseline == "clean") continue;
    if (!has_clean && summary.baseline->empty()) continue;
    out += summary.baseline->empty()
               ? fmt::format("{}: x clean not shown: it runs another workload than clean\n",
                             summary.name)
               : fmt::format("{}: x {}: wall / {}'s wall (the same workload)\n", summary.name,
                             *summary.baseline, *summary.baseline);
  }
  for (const ScenarioSummary& summary : summaries) {
    if (summary.status == rundir::ScenarioStatus::kCompleted) continue;
    out += fmt::format("{}: {}{}\n", summary.name, format_status(summary),
                       summary.message.empty() ? "" : " -- " + summary.message);
  }
  return out;
}

}  // namespace fabriclab::runner::report
