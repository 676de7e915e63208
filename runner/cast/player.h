// Playing a recorded session back (`fabriclab replay`): output events are
// written at their recorded pace, markers become chapter lines.
//
//   Cast cast = read_cast(path);              // validated before playing
//   PlayResult r = play_cast(cast, std::cout, {.speed = 2}, stop_flag);
//
// Timing: the wait before each event is the gap since the previous one,
// capped at idle_limit_s (long pauses such as a stalled scenario), divided by
// speed. Waits follow one schedule from the start (no drift from many small
// sleeps); play_schedule() computes it, so the pace is tested on the
// schedule rather than by timing a replay on a shared CPU.
// Output: "o" events through a TerminalSanitizer unless raw (see
// terminal_sanitizer.h: the safety policy); "m" events as a dim chapter line
// "── LABEL ──" on a line of its own (the label stripped of every control
// character, even with raw); "i" (input) and "r" (resize) and unknown codes
// are skipped.
// Stopping: `stop` is polled at least every 50 ms while waiting; when it turns
// true play_cast() returns promptly with stopped = true (the caller restores
// the terminal and says so).
// Thread safety: play_cast() writes `out` from the calling thread only;
// `stop` may be set from anywhere (a signal handler).
#pragma once

#include <atomic>
#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "runner/cast/cast_reader.h"

namespace fabriclab::runner {

struct PlayOptions {
  double speed = 1.0;         // > 0; 2 = twice as fast
  double idle_limit_s = 2.0;  // > 0; longest wait, in recorded seconds
  bool raw = false;           // UNSAFE: write recorded bytes unfiltered
};

struct PlayResult {
  bool stopped = false;     // `stop` ended the replay early
  double played_s = 0;      // recorded time reached (seconds of the cast)
  std::size_t markers = 0;  // chapter lines shown
  std::size_t removed = 0;  // sequences the sanitizer removed
};

// Throws InputError for options out of range (speed or idle_limit_s <= 0).
void check_play_options(const PlayOptions& options);

// When each of cast.events is due, in playback seconds after the start: the
// running sum of the recorded gaps between played ("o", "m") events, each
// capped at idle_limit_s and divided by speed. Events that are not played
// are due with the played event before them (0 before any). Checks options.
std::vector<double> play_schedule(const Cast& cast, const PlayOptions& options);

// Throws InputError for options out of range (speed or idle_limit_s <= 0).
PlayResult play_cast(const Cast& cast, std::ostream& out, const PlayOptions& options,
                     const std::atomic<bool>& stop);

// The chapter line for a marker label: "\x1b[2m── label ──\x1b[0m\r\n", with
// every control character (C0, DEL, C1) removed from the label.
std::string chapter_line(const std::string& label);

}  // namespace fabriclab::runner
