#include "runner/page/results_section.h"

#include <spdlog/fmt/fmt.h>

#include <functional>
#include <optional>

#include "runner/page/html_text.h"
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

template <typename T>
std::optional<std::string> formatted(const std::optional<T>& value, const char* format) {
  if (!value) return std::nullopt;
  return fmt::format(format, *value);
}

std::optional<std::string> step_ms(double ms, const ScenarioSummary& s) {
  if (s.result.steps_completed == 0) return std::nullopt;
  return ms < 100 ? fmt::format("{:.1f}", ms) : fmt::format("{:.0f}", ms);
}

std::vector<Column> columns(const std::vector<ScenarioSummary>& summaries) {
  bool sweep = false;  // an allreduce workload: nccl-tests' figures
  for (const auto& s : summaries) sweep = sweep || s.result.busbw_gb_per_s.has_value();
  std::vector<Column> out = {
      {"wall s", "from the first step's start to the last step's end",
       [](const ScenarioSummary& s) -> std::optional<std::string> {
         if (s.result.steps_completed == 0 && s.result.wall_s == 0) return std::nullopt;
         return fmt::format("{:.1f}", s.result.wall_s);
       }},
      {"x baseline", "wall time / the baseline scenario's (a lower bound, >, when cut off)",
       [](const ScenarioSummary& s) -> std::optional<std::string> {
         if (s.result.slowdown) return fmt::format("{:.2f}", *s.result.slowdown);
         if (s.slowdown_at_least) return fmt::format(">{:.1f}", *s.slowdown_at_least);
         return std::nullopt;
       }},
  };
  if (sweep) {
    out.push_back(
        {"busbw GB/s", "the largest size's out-of-place bus bandwidth",
         [](const ScenarioSummary& s) { return formatted(s.result.busbw_gb_per_s, "{:.3f}"); }});
    out.push_back({"avg busbw GB/s", "nccl-tests' average bus bandwidth over sizes",
                   [](const ScenarioSummary& s) {
                     return formatted(s.result.avg_busbw_gb_per_s, "{:.3f}");
                   }});
    out.push_back({"#wrong", "elements that were not the sum they had to be",
                   [](const ScenarioSummary& s) { return formatted(s.result.wrong, "{}"); }});
  } else {
    out.push_back({"p50 step ms", "median step time (the slowest rank's, per step)",
                   [](const ScenarioSummary& s) { return step_ms(s.result.median_step_ms, s); }});
    out.push_back({"p99 step ms", "99th percentile step time",
                   [](const ScenarioSummary& s) { return step_ms(s.result.p99_step_ms, s); }});
    out.push_back(
        {"net ms", "median time per step of the network alone",
         [](const ScenarioSummary& s) { return formatted(s.result.median_network_ms, "{:.1f}"); }});
    out.push_back({"comm %", "share of step time spent in communication",
                   [](const ScenarioSummary& s) -> std::optional<std::string> {
                     if (s.result.steps_completed == 0) return std::nullopt;
                     return fmt::format("{:.0f}", 100 * s.result.comm_share);
                   }});
  }
  out.push_back({"TCP retx", "TCP segments retransmitted in the ranks' namespaces",
                 [](const ScenarioSummary& s) { return formatted(s.result.retransmits, "{}"); }});
  out.push_back({"drops", "packets the impairment dropped",
                 [](const ScenarioSummary& s) { return formatted(s.result.drops, "{}"); }});
  if (!sweep) {
    out.push_back(
        {"final loss", "training loss at the last step (mean over ranks)",
         [](const ScenarioSummary& s) { return formatted(s.result.final_loss, "{:.3f}"); }});
    out.push_back({"accuracy", "the last evaluation's accuracy", [](const ScenarioSummary& s) {
                     if (!s.result.accuracy) return std::optional<std::string>();
                     return std::optional<std::string>(
                         fmt::format("{:.1f}%", 100 * *s.result.accuracy));
                   }});
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
