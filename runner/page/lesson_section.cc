#include "runner/page/lesson_section.h"

#include <spdlog/fmt/fmt.h>

#include "runner/page/html_text.h"
#include "runner/page/json_text.h"

namespace fabriclab::runner::page {

namespace {

std::string escaped(const nlohmann::json& object, const char* key) {
  return html_escape(plain(field(object, key)));
}

// "failed" -> "fl-failed", "not judged" -> "fl-not-judged"; anything else
// shows unstyled.
std::string row_class(const std::string& outcome) {
  if (outcome == "held" || outcome == "failed") return "fl-" + outcome;
  if (outcome == "not judged") return "fl-not-judged";
  return "";
}

}  // namespace

std::string lesson_section(const nlohmann::json& manifest) {
  const nlohmann::json& lesson = field(manifest, "lesson");
  if (lesson.is_null()) return "";
  const nlohmann::json checks =
      field(lesson, "checks").is_array() ? field(lesson, "checks") : nlohmann::json::array();
  int failed = 0;
  std::string rows;
  for (const auto& check : checks) {
    const std::string outcome = plain(field(check, "outcome"));
    failed += outcome == "failed";
    rows += fmt::format(
        "<tr class=\"{}\"><td>{}</td><td>{}</td><td><code>{}</code></td><td>{}</td></tr>\n",
        row_class(outcome), html_escape(outcome), escaped(check, "claim"), escaped(check, "check"),
        escaped(check, "detail"));
  }
  const bool held = field(lesson, "held") == true;
  const std::string verdict =
      held ? "The lesson held in this run."
      : failed > 0
          ? fmt::format("The lesson did not hold in this run: {} of {} checks failed. These "
                        "numbers do not show what the lab claims; read the lab's README, "
                        "\"The lesson, checked on your run\".",
                        failed, checks.size())
          : "The lesson was not judged: this run left out what its checks read.";
  return fmt::format(
      "<section id=\"lesson\">\n<h2>The lesson</h2>\n<p class=\"fl-verdict\">{}</p>\n"
      "<table id=\"fl-lesson\">\n<thead><tr><th>outcome</th><th>what it shows</th>"
      "<th>check</th><th>measured</th></tr></thead>\n<tbody>\n{}</tbody>\n</table>\n</section>\n",
      html_escape(verdict), rows);
}

}  // namespace fabriclab::runner::page
