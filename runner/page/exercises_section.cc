#include "runner/page/exercises_section.h"

#include <spdlog/fmt/fmt.h>

#include "runner/page/html_text.h"

namespace fabriclab::runner::page {
namespace {

// What the student writes, in words: the shape of an answer, not its value.
std::string answer_shape(const Exercise& exercise) {
  switch (exercise.kind) {
    case Kind::kNumber:
      return exercise.unit.empty() ? "a number" : "a number, in " + exercise.unit;
    case Kind::kChoice:
      return "one of the options' keys";
    case Kind::kRank:
      return "a rank id, e.g. \"r2\"";
    case Kind::kOrdering:
      return "scenario names, in order";
    case Kind::kProperty:
      return "nothing: checked on your recording";
    case Kind::kPrediction:
      return (exercise.unit.empty() ? std::string("a number") : "a number, in " + exercise.unit) +
             ", predicted before the run (it records it before scenario " + exercise.before +
             " starts)";
  }
  return kind_name(exercise.kind);
}

std::string exercise_item(const Exercise& exercise) {
  std::string options;
  for (const ChoiceOption& option : exercise.options) {
    options += fmt::format("<li><code>{}</code> {}</li>", html_escape(option.key),
                           html_escape(option.text));
  }
  return fmt::format(
      "<li id=\"exercise-{0}\"><p class=\"fl-prompt\">{1}</p>{2}"
      "<p class=\"fl-meta\"><code>{0}</code> &middot; answer: {3} &middot; {4} point{5}</p></li>\n",
      html_escape(exercise.id), html_escape(exercise.prompt),
      options.empty() ? "" : "<ul class=\"fl-options\">" + options + "</ul>",
      html_escape(answer_shape(exercise)), exercise.points, exercise.points == 1 ? "" : "s");
}

}  // namespace

std::string exercises_section(const LabDefinition* lab, const std::string& note) {
  std::string html = "<section id=\"exercises\">\n<h2>Exercises</h2>\n";
  if (!lab) return html + "<p class=\"fl-problems\">" + html_escape(note) + "</p>\n</section>\n";
  if (lab->exercises.empty())
    return html + "<p>This lab has no graded exercises.</p>\n</section>\n";
  html += fmt::format(
      "<p>Answer these from your own run: <code>fabriclab grade {0} --init</code> writes an "
      "answers file beside your recording, <code>fabriclab grade {0}</code> checks it.</p>\n",
      html_escape(lab->id));
  html += "<ol id=\"fl-exercises\">\n";
  for (const Exercise& exercise : lab->exercises) html += exercise_item(exercise);
  return html + "</ol>\n</section>\n";
}

}  // namespace fabriclab::runner::page
