// The page's lesson: whether the run showed what its lab teaches -- run.json's
// "lesson" (recordings/FORMAT.md; judged when the run ended,
// runner/grading/lesson_verdict.h): the verdict in words, then one row per
// check with its claim, the check and what the run measured. Nothing for a
// recording without one (a lab without a lesson, or a run from before).
//
// run.json is read leniently (json_text.h): a field of another type shows as
// its JSON text. Every value is escaped (html_text.h). Pure function.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace fabriclab::runner::page {

// <section id="lesson">...</section>, or "" without a lesson; each check's
// row is <tr class="fl-held|fl-failed|fl-not-judged">.
std::string lesson_section(const nlohmann::json& manifest);

}  // namespace fabriclab::runner::page
