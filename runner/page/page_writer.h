// `fabriclab page DIR`: one self-contained HTML page of a run directory
// (recordings/FORMAT.md), to open from disk or put on any static web server.
// It needs nothing from the network: asciinema-player's script and style and
// the page's own are inlined (page_assets.h), the charts are inline SVG, the
// session and its markers are embedded as JSON.
//
//   PageSummary s = write_page("recordings/02-dropped-packet", out, PageOptions{});
//
// The page, top to bottom: the session (player_cast.h: sanitized as replay
// does, scenario markers on the timeline), the results (results_section.h),
// the conditions (conditions_section.h), the charts (charts_section.h), the
// exercises (exercises_section.h).
//
// Hostile recordings: every text from the run directory or the lab is
// escaped, JSON goes into <script type="application/json"> with < > & as
// \u escapes (html_text.h), SVG is checked before it is inlined. As a second
// wall, a Content-Security-Policy lets only the page's own scripts run (a
// fresh random nonce per page), loads nothing from anywhere (default-src
// 'none'), and allows the player's WebAssembly ('wasm-unsafe-eval').
//
// Errors: InputError (exit 2) for a run directory that cannot be read
// (run.json missing, damaged or of another format or version, a damaged
// metrics.jsonl line: runner/report/run_directory.h; session.cast missing or
// damaged: runner/cast/cast_reader.h), before anything is written;
// std::runtime_error when this fabriclab was built without the player
// (page_assets.h). Chart problems and a lab that cannot be found are written
// into the page and returned in `problems`, not thrown.
// Thread safety: launches gnuplot (charts_section.h); no shared state.
#pragma once

#include <cstddef>
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

namespace fabriclab::runner::page {

struct PageOptions {
  std::string labs_dir;     // where the lab's exercises are looked up; "" = default_labs_dir()
  double idle_limit_s = 2;  // the player shortens pauses to this, as `replay --idle-limit`
};

struct PageSummary {
  std::size_t scenarios = 0;
  std::size_t markers = 0;
  int charts = 0;
  std::size_t exercises = 0;
  std::size_t removed_sequences = 0;  // by the terminal sanitizer
  std::vector<std::string> problems;  // one line each, for stderr
};

PageSummary write_page(const std::filesystem::path& run_dir, std::ostream& out,
                       const PageOptions& options);

}  // namespace fabriclab::runner::page
