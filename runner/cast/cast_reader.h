// Reading asciicast v2 files (session.cast; recordings/FORMAT.md): the header
// line and every event, validated before anything is played, so a bad file is
// an error with its line, never a crash or a half-played session.
//
//   Cast cast = read_cast("runs/02-.../session.cast");
//   for (const CastEvent& e : cast.events) if (e.code == "o") show(e.data);
//
// Accepted: version 2 only. Header: a JSON object with integer "version" (2),
// positive integer "width" and "height"; "timestamp", "title", "env",
// "idle_time_limit" optional (type-checked when present). Events: one JSON
// array [time_s, code, data] per line: a finite time_s >= 0 that never goes
// backwards, a non-empty code string ("o" output, "m" marker, "i" input, "r"
// resize; others are kept, the spec asks players to ignore them), a data
// string. Blank lines are skipped. A last line without its newline that is not
// valid JSON is reported as truncated (a recording that was cut off).
//
// Errors: InputError (exit 2) "path:line: what was wrong", or "path: ..." for
// the file as a whole (missing, empty, asciicast v1 -- one JSON document, not
// lines). Examples:
//   "x.cast:1: asciicast version 3 is not supported: this player reads version 2"
//   "x.cast:7: not JSON: ..."   "x.cast:9: truncated: the file ends inside this event"
//   "x.cast:4: event: expected [time, code, data] (a number and two strings)"
//   "x.cast:12: time 3.5 s is before the previous event's 4.0 s"
// Thread safety: plain functions, no shared state.
#pragma once

#include <istream>
#include <optional>
#include <string>
#include <vector>

namespace fabriclab::runner {

constexpr int kCastVersion = 2;

struct CastHeader {
  int width = 0;
  int height = 0;
  std::optional<double> timestamp_unix_s;
  std::string title;  // "" when absent
  std::optional<double> idle_time_limit_s;
};

struct CastEvent {
  double time_s = 0;  // seconds since the start of the recording
  std::string code;   // "o", "m", "i", "r", ...
  std::string data;   // as recorded (UTF-8; not sanitized)
  long line = 0;      // 1-based line in the file, for messages
};

struct Cast {
  std::string path;
  CastHeader header;
  std::vector<CastEvent> events;  // in file order, times non-decreasing

  double duration_s() const { return events.empty() ? 0.0 : events.back().time_s; }
};

// Reads and validates the file at `path`.
Cast read_cast(const std::string& path);
// The same over a stream; `path` names it in messages.
Cast parse_cast(std::istream& in, const std::string& path);

}  // namespace fabriclab::runner
