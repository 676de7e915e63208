// The recorded session as the page's player gets it: session.cast
// (runner/cast/cast_reader.h) rewritten as an asciicast v2 text that is
// safe to play and whose markers say what happened.
//
//   PlayerCast cast = player_cast(read_cast(dir / "session.cast"));
//   data["cast"] = cast.asciicast;   // AsciinemaPlayer.create({data: ...})
//
// What changes, and why:
//  - every "o" event's text goes through the TerminalSanitizer, as `fabriclab
//    replay` does (recordings/FORMAT.md, "Replaying untrusted recordings"): the
//    player emulates a terminal, and a page someone opens should show what
//    replay shows. One sanitizer for the whole stream, so a sequence split
//    across events is still recognised; events left empty are dropped.
//  - the runner's markers ("scenario NAME: start", "scenario NAME: STATUS")
//    become labels for the player's timeline: "NAME starts", "NAME completed",
//    "NAME STALLED: stall declared", "NAME DEADLINE: stopped at its deadline";
//    markers less than kMergeMarkersS apart (a scenario's end and the next
//    one's start) become one marker "A completed / B starts", so a click
//    lands on one place. Labels are plain text (runner::plain_text).
//  - the header keeps width, height, timestamp and a plain-text title; "i"
//    (input), "r" (resize) and unknown events are left out, as replay skips
//    them; a cast left with no event at all gets one empty output event
//    (the player refuses a recording without events).
// The page embeds `asciicast` as JSON (html_text.h), so its content, sanitized
// or not, is data to the browser, never markup.
// Pure function, thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "runner/cast/cast_reader.h"

namespace fabriclab::runner::page {

constexpr double kMergeMarkersS = 0.5;

struct ScenarioMark {
  std::string scenario;
  std::string status;  // "start", or the end's status word as recorded
  double time_s = 0;
  int marker = 0;  // the index of the player marker that holds it
};

struct PlayerCast {
  std::string asciicast;            // header line + events, '\n'-terminated
  std::vector<std::string> labels;  // the markers' labels, in time order
  std::vector<double> marker_times_s;
  std::vector<ScenarioMark> scenarios;  // the runner's markers, parsed
  std::size_t removed = 0;              // sequences the sanitizer removed
  double duration_s = 0;
};

PlayerCast player_cast(const Cast& cast);

}  // namespace fabriclab::runner::page
