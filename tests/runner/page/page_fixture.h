// Recordings for the page tests: a copy of a reference recording (run.json,
// metrics.jsonl, session.cast) that a test may damage, and a hostile one --
// the same run with markup and script in every text a page shows (cast
// output, the cast's title and markers, run.json's lab title, a condition,
// the backend's reason) and terminal attacks and a huge line in its output.
#pragma once

#include <string>

#include "tests/support/child_process.h"

namespace fabriclab::testing {

// What the hostile texts would do if they ran: set the document's title to
// kPwned (written as 'PWNED'+'42' in the payloads, so the finished word never
// appears in the page's text) or call alert().
inline constexpr const char* kPwned = "PWNED42";
inline constexpr const char* kScriptPayload =
    "</script><script>alert(1)</script><script>document.title='PWNED'+'42'</script>";
inline constexpr const char* kMarkupPayload =
    "<img src=x onerror=\"document.title='PWNED'+'42'\"><b>bold</b>&amp;";

// Copies recordings/NAME's run.json, metrics.jsonl and session.cast into a
// fresh directory under `parent`; returns its path.
std::string copy_recording(const std::string& name, const std::string& parent);

// Turns a copied recording into the hostile one described above. Returns
// the time its hostile output starts, seconds into the cast: a 1 MiB line at
// +0.1, the payloads at +0.2 and +0.3, the terminal attacks and "after the
// attacks" at +0.4, a marker labelled with the payload at +0.5.
double make_hostile(const std::string& dir);

// How often `what` occurs in `text`.
std::size_t count(const std::string& text, const std::string& what);

// The <tbody> of the page's results table (<table id="fl-results">), in the
// page as written or in the DOM a browser made of it; "" without one.
std::string results_body(const std::string& html);

// `fabriclab page ARGS...`, stdout and stderr together.
RunResult run_page(const std::vector<std::string>& args);

}  // namespace fabriclab::testing
