#include "runner/page/results_section.h"

#include <spdlog/fmt/fmt.h>

#include <functional>
#include <optional>

#include "runner/page/html_text.h"
#include "runner/report/result/result_parts.h"
#include "runner/report/summary_table.h"
#include "runner/report/table_kind.h"

namespace fabriclab::runner::page {
namespace {

using report::ScenarioSummary;

constexpr const char* kAbsent = "&ndash;";

struct Column {
  const char* header;
  const char* title;  // the header's tooltip: what the column means
  std::function<std::optional<std::string>(const ScenarioSummary&)> value;  // plain text
};

// How a figure shows in a cell.
std::string one_decimal(double x) { return fmt::format("{:.1f}", x); }
std::string two_decimals(double x) { return fmt::format("{:.2f}", x); }
std::string three_decimals(double x) { return fmt::format("{:.3f}", x); }
std::string whole_percent(double share) { return fmt::format("{:.0f}", 100 * share); }
std::string percent(double share) { return fmt::format("{:.1f}%", 100 * share); }
std::string step_ms(double ms) {
  return ms < 100 ? fmt::format("{:.1f}", ms) : fmt::format("{:.0f}", ms);
}

bool stepped(const ScenarioSummary& s) {
  return report::result_count(s.result, "steps_completed").value_or(0) != 0;
}

// A column of one result field, by name (report/result/result_parts.h): a
// count as an integer, a figure through `format` (nullptr for a count
// column); none when the row has none or, `if_stepped`, when the scenario
// completed no step (its step figures are 0 then, not measured).
Column field_column(const char* header, const char* title, std::string field,
                    std::string (*format)(double), bool if_stepped = false) {
  return {header, title,
          [field, format, if_stepped](const ScenarioSummary& s) -> std::optional<std::string> {
            if (if_stepped && !stepped(s)) return std::nullopt;
            if (const auto n = report::result_count(s.result, field)) return fmt::format("{}", *n);
            if (const auto x = report::result_number(s.result, field); x && format)
              return format(*x);
            return std::nullopt;
          }};
}

std::vector<Column> columns(const std::vector<ScenarioSummary>& summaries) {
  bool sweep = false;  // an allreduce workload: nccl-tests' figures
  for (const auto& s : summaries)
    sweep = sweep || report::result_number(s.result, "busbw_gb_per_s").has_value();
  const Column slowdown = field_column("x baseline", "", "slowdown", two_decimals);
  std::vector<Column> out = {
      {"wall s", "from the first step's start to the last step's end",
       [](const ScenarioSummary& s) -> std::optional<std::string> {
         const double wall_s = report::result_number(s.result, "wall_s").value_or(0);
         if (!stepped(s) && wall_s == 0) return std::nullopt;
         return one_decimal(wall_s);
       }},
      {"x baseline", "wall time / the baseline scenario's (a lower bound, >, when cut off)",
       [slowdown](const ScenarioSummary& s) -> std::optional<std::string> {
         if (auto value = slowdown.value(s)) return value;
         if (s.slowdown_at_least) return fmt::format(">{:.1f}", *s.slowdown_at_least);
         return std::nullopt;
       }},
  };
  if (sweep) {
    out.push_back(field_column("busbw GB/s", "the largest size's out-of-place bus bandwidth",
                               "busbw_gb_per_s", three_decimals));
    out.push_back(field_column("avg busbw GB/s", "nccl-tests' average bus bandwidth over sizes",
                               "avg_busbw_gb_per_s", three_decimals));
    out.push_back(
        field_column("#wrong", "elements that were not the sum they had to be", "wrong", nullptr));
  } else {
    out.push_back(field_column("p50 step ms", "median step time (the slowest rank's, per step)",
                               "median_step_ms", step_ms, true));
    out.push_back(
        field_column("p99 step ms", "99th percentile step time", "p99_step_ms", step_ms, true));
    out.push_back(field_column("net ms", "median time per step of the network alone",
                               "median_network_ms", one_decimal));
    out.push_back(field_column("comm %", "share of step time spent in communication", "comm_share",
                               whole_percent, true));
  }
  out.push_back(field_column("TCP retx", "TCP segments retransmitted in the ranks' namespaces",
                             "retransmits", nullptr));
  out.push_back(field_column("drops", "packets the impairment dropped", "drops", nullptr));
  if (!sweep) {
    out.push_back(field_column("final loss", "training loss at the last step (mean over ranks)",
                               "final_loss", three_decimals));
    out.push_back(field_column("accuracy", "the last evaluation's accuracy", "accuracy", percent));
  }
  return out;
}

// The marker of `scenario`'s start, or of its end when `end`; -1 if none.
int marker_of(const std::vector<ScenarioMark>& marks, const std::string& scenario, bool end) {
  for (const ScenarioMark& mark : marks) {
    if (mark.scenario == scenario && (mark.status == "start") != end) return mark.marker;
  }
  return -1;
}

std::string seek_button(int marker, const std::string& text, const std::string& title) {
  if (marker < 0) return html_escape(text);
  return fmt::format(
      R"(<button type="button" class="fl-seek" data-marker="{}" title="{}">{}</button>)", marker,
      html_escape(title), html_escape(text));
}

std::string status_class(const ScenarioSummary& s) {
  const std::string word = report::status_word(s);
  return word == "completed" ? "fl-ok" : "fl-bad";
}

std::string notes(const std::vector<ScenarioSummary>& summaries) {
  std::string items;
  for (const auto& s : summaries) {
    if (s.message.empty()) continue;
    items += fmt::format("<li><b>{}</b> ({}): {}</li>\n", html_escape(s.name),
                         html_escape(report::format_status(s)), html_escape(s.message));
  }
  return items.empty() ? "" : "<ul class=\"fl-notes\">\n" + items + "</ul>\n";
}

// The lab's own text tables, as the terminal report prints them.
std::string lab_tables(const report::RunDirectory& run,
                       const std::vector<ScenarioSummary>& summaries) {
  const auto listed = run.manifest.find("tables");
  if (listed == run.manifest.end() || !listed->is_array()) return "";
  std::string out;
  for (const auto& name : *listed) {
    const report::TableKind* table =
        name.is_string() ? report::find_table(name.get<std::string>()) : nullptr;
    if (!table) continue;
    const std::string text = table->write(summaries);
    if (text.empty()) continue;
    out += fmt::format(
        "<figure class=\"fl-text-table\" id=\"table-{0}\"><figcaption>{0}</figcaption>"
        "<pre>{1}</pre></figure>\n",
        html_escape(table->name), html_escape(text));
  }
  return out;
}

}  // namespace

std::string results_section(const report::RunDirectory& run,
                            const std::vector<ScenarioSummary>& summaries,
                            const std::vector<ScenarioMark>& marks) {
  const std::vector<Column> cols = columns(summaries);
  std::string html = "<section id=\"results\">\n<h2>Results</h2>\n";
  html +=
      "<p>One row per scenario, computed from <code>metrics.jsonl</code> as the terminal "
      "report does. A scenario's name moves the player to its start.</p>\n";
  html +=
      "<div class=\"fl-scroll\"><table id=\"fl-results\">\n<thead><tr><th>scenario</th>"
      "<th>condition</th><th>status</th>";
  for (const Column& c : cols) {
    html += fmt::format("<th title=\"{}\">{}</th>", html_escape(c.title), html_escape(c.header));
  }
  html += "</tr></thead>\n<tbody>\n";
  for (const ScenarioSummary& s : summaries) {
    const std::string status = report::format_status(s);
    html += fmt::format(
        "<tr data-scenario=\"{}\"><th scope=\"row\">{}</th><td>{}</td>", html_escape(s.name),
        seek_button(marker_of(marks, s.name, false), s.name, "play from the start of " + s.name),
        html_escape(s.condition));
    html += fmt::format("<td class=\"{}\">{}</td>", status_class(s),
                        report::status_word(s) == "completed"
                            ? html_escape(status)
                            : seek_button(marker_of(marks, s.name, true), status,
                                          s.message.empty() ? status : s.message));
    for (const Column& c : cols) {
      const std::optional<std::string> value = c.value(s);
      html += "<td class=\"fl-num\">" + (value ? html_escape(*value) : kAbsent) + "</td>";
    }
    html += "</tr>\n";
  }
  html += "</tbody>\n</table></div>\n";
  html += notes(summaries);
  html += lab_tables(run, summaries);
  html += "</section>\n";
  return html;
}

}  // namespace fabriclab::runner::page
