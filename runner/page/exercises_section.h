// The page's exercises: the lab's [[exercise]] prompts (runner/lab/exercise.h)
// with what an answer looks like -- its kind, unit, points, and a choice's
// options -- and never what is expected: no `value` derivation, no `answer`
// or `answer_order`, no option's `when` check, no tolerance, no hints (those
// are for after a wrong answer, from `fabriclab grade`).
//
// The lab comes from the labs folder (run.json names it), not from the
// recording: a recording holds no exercises. When the lab cannot be found or
// read, the section says why in place of the list (`note`), and the page is
// written all the same.
// Every value is escaped (html_text.h). Pure function, thread-safe.
#pragma once

#include <string>

#include "runner/lab/lab_definition.h"

namespace fabriclab::runner::page {

// <section id="exercises">...</section>: lab's exercises, or `note` when
// `lab` is null.
std::string exercises_section(const LabDefinition* lab, const std::string& note);

}  // namespace fabriclab::runner::page
