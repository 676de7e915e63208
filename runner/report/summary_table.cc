#include "runner/report/summary_table.h"

#include <algorithm>
#include <cctype>
#include <functional>

#include <spdlog/fmt/fmt.h>

#include "runner/report/result/result_parts.h"
#include "runner/report/slowdown_yardstick.h"

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

// GB/s with three significant digits: lab links are Mbit/s, 0.0118 GB/s.
std::string format_gb_per_s(double value) {
  if (value >= 100) return fmt::format("{:.0f}", value);
  if (value >= 1) return fmt::format("{:.2f}", value);
  return fmt::format("{:.3g}", value);
}

std::string format_ratio(double x) { return fmt::format("{:.2f}", x); }
std::string format_wall_s(double s) { return fmt::format("{:.1f}", s); }
std::string format_percent(double share) { return fmt::format("{:.0f}", share * 100); }
std::string format_loss(double loss) { return fmt::format("{:.3f}", loss); }

// Whether the scenario measured any step: without one, the figures every
// row holds (wall time, step times, comm share) are 0, not a measurement.
bool measured(const ScenarioResult& r) {
  return result_count(r, "steps_completed").value_or(0) != 0 ||
         result_number(r, "wall_s").value_or(0) != 0;
}

struct Column {
  const char* header_top;  // a two-line header keeps number columns narrow
  const char* header;
  bool left_aligned;
  std::function<std::string(const ScenarioSummary&)> cell;
};

// A column of one result field, by name (result/result_parts.h): counts
// print as integers, figures through `format` (nullptr for a count column);
// "--" when the row has none, or, `if_measured`, when the scenario measured
// no step.
Column field_column(const char* top, const char* header, std::string field,
                    std::string (*format)(double), bool if_measured = false) {
  return {top, header, false, [field, format, if_measured](const ScenarioSummary& s) {
            if (if_measured && !measured(s.result)) return std::string(kAbsent);
            if (const auto n = result_count(s.result, field)) return fmt::format("{}", *n);
            if (const auto x = result_number(s.result, field); x && format) return format(*x);
            return std::string(kAbsent);
          }};
}

// What every table starts with: the scenario as the run names it.
std::vector<Column> scenario_columns() {
  return {{"", "scenario", true, [](const ScenarioSummary& s) { return s.name; }},
          {"", "condition", true,
           [](const ScenarioSummary& s) {
             return s.condition.empty() ? std::string(kAbsent) : s.condition;
           }},
          {"", "status", true, [](const ScenarioSummary& s) { return format_status(s); }}};
}

// `x_label`: what the slowdowns are against (slowdown_yardstick.h), kept
// alive by the caller for the columns' lifetime.
std::vector<Column> training_columns(const std::string& x_label) {
  std::vector<Column> columns = scenario_columns();
  columns.push_back(field_column("wall", "s", "wall_s", format_wall_s, true));
  // A scenario cut off by its deadline has a lower bound instead (scenario_summary.h).
  const Column slowdown = field_column("x", x_label.c_str(), "slowdown", format_ratio);
  columns.push_back({"x", x_label.c_str(), false, [slowdown](const ScenarioSummary& s) {
                       if (s.slowdown_at_least) return fmt::format(">{:.1f}", *s.slowdown_at_least);
                       return slowdown.cell(s);
                     }});
  columns.push_back(field_column("p50", "ms", "median_step_ms", format_ms, true));
  columns.push_back(field_column("p99", "ms", "p99_step_ms", format_ms, true));
  columns.push_back(field_column("net", "ms", "median_network_ms", format_ms, true));
  columns.push_back(field_column("comm", "%", "comm_share", format_percent, true));
  columns.push_back(field_column("TCP", "retx", "retransmits", nullptr));
  columns.push_back(field_column("", "drops", "drops", nullptr));
  columns.push_back(field_column("final", "loss", "final_loss", format_loss));
  return columns;
}

// An allreduce sweep (the `allreduce` workload) has no loss and no step
// times worth a column: its columns are nccl-tests' figures instead.
std::vector<Column> allreduce_columns() {
  std::vector<Column> columns = scenario_columns();
  columns.push_back(field_column("wall", "s", "wall_s", format_wall_s, true));
  columns.push_back(field_column("busbw", "GB/s", "busbw_gb_per_s", format_gb_per_s));
  columns.push_back(field_column("x", "base", "busbw_ratio", format_ratio));
  columns.push_back(field_column("avg bw", "GB/s", "avg_busbw_gb_per_s", format_gb_per_s));
  columns.push_back(field_column("", "#wrong", "wrong", nullptr));
  columns.push_back(field_column("TCP", "retx", "retransmits", nullptr));
  columns.push_back(field_column("", "drops", "drops", nullptr));
  return columns;
}
constexpr size_t kConditionColumn = 1;

bool is_sweep(const std::vector<ScenarioSummary>& summaries) {
  for (const ScenarioSummary& summary : summaries)
    if (result_number(summary.result, "busbw_gb_per_s")) return true;
  return false;
}
constexpr const char* kGap = "  ";

bool has_scenario(const std::vector<ScenarioSummary>& summaries, const std::string& name) {
  return std::any_of(summaries.begin(), summaries.end(),
                     [&](const ScenarioSummary& s) { return s.name == name; });
}

// Which scenario is measured against which: with several baselines, the
// whole legend (the column says only "x base"); with one, the scenarios
// that have none, or that the baseline did not run.
std::string yardstick_notes(const std::vector<ScenarioSummary>& summaries,
                            const SlowdownYardstick& yardstick) {
  if (yardstick.several())
    return "x base, each scenario against its baseline (the same workload):\n" +
           yardstick_legend(yardstick, "  ");
  const std::string& label = yardstick.label;
  const bool measured = std::any_of(yardstick.groups.begin(), yardstick.groups.end(),
                                    [](const auto& group) { return !group.first.empty(); });
  if (!measured && !has_scenario(summaries, label))
    return "x clean: not shown where a scenario names no baseline (no clean scenario)\n";
  if (!has_scenario(summaries, label))
    return fmt::format("x {}: not shown: no {} scenario in this run\n", label, label);
  std::string out;
  for (const ScenarioSummary& summary : summaries) {
    // The yardstick itself (lab 09's same-host) has none, and needs no note.
    if (baseline_of(summary).empty() && summary.name != label)
      out += fmt::format("{}: x {} not shown: it runs another workload than {}\n", summary.name,
                         label, label);
  }
  return out;
}

}  // namespace

std::string format_status(const ScenarioSummary& summary) {
  const std::string status = upper(status_word(summary));
  if (summary.status == rundir::ScenarioStatus::kCompleted ||
      summary.status == rundir::ScenarioStatus::kSkipped || !summary.steps_planned) {
    return status;
  }
  return fmt::format("{} {}/{}", status,
                     result_count(summary.result, "steps_completed").value_or(0),
                     *summary.steps_planned);
}

std::string format_summary_table(const std::vector<ScenarioSummary>& summaries) {
  using Row = std::vector<std::string>;
  const bool sweep = is_sweep(summaries);
  const SlowdownYardstick yardstick = slowdown_yardstick(summaries);
  const std::vector<Column> columns =
      sweep ? allreduce_columns() : training_columns(yardstick.label);
  const size_t column_count = columns.size();
  std::vector<Row> rows;
  rows.push_back({});
  for (const Column& column : columns) rows.back().push_back(column.header_top);
  rows.push_back({});
  for (const Column& column : columns) rows.back().push_back(column.header);
  for (const ScenarioSummary& summary : summaries) {
    rows.push_back({});
    for (const Column& column : columns) rows.back().push_back(column.cell(summary));
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
            if (const auto size = result_count(s.result, "largest_size"))
              return fmt::format("{} B", *size);
          return std::string("--");
        }());
  } else {
    out += fmt::format(
        "\nwall: first step start to last step end.  x {}: wall / {} wall (>N: at least;\n"
        "the scenario ran out of time).  p50 (median), p99: step time of the slowest rank per step.\n"
        "net: median time the allreduce itself took (the last rank to reach it waited only for the\n"
        "network).  comm: share of step time blocked in allreduce.  TCP retx: segments retransmitted.\n"
        "drops: packets the impairment dropped.\n"
        "final loss: mean over ranks of the last step's training loss.\n",
        yardstick.label, yardstick.several() ? "its baseline's" : yardstick.label + "'s");
  }
  out += yardstick_notes(summaries, yardstick);
  for (const ScenarioSummary& summary : summaries) {
    if (summary.status == rundir::ScenarioStatus::kCompleted) continue;
    out += fmt::format("{}: {}{}\n", summary.name, format_status(summary),
                       summary.message.empty() ? "" : " -- " + summary.message);
  }
  return out;
}

}  // namespace fabriclab::runner::report
