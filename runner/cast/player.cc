#include "runner/cast/player.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "common/input_error.h"
#include "runner/cast/terminal_sanitizer.h"

namespace fabriclab::runner {
namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kStopPoll = std::chrono::milliseconds(50);

// Sleeps until `deadline`, waking every kStopPoll to look at `stop`.
// Returns false when stopped.
bool wait_until(Clock::time_point deadline, const std::atomic<bool>& stop) {
  while (!stop.load()) {
    const auto now = Clock::now();
    if (now >= deadline) return true;
    std::this_thread::sleep_for(std::min<Clock::duration>(deadline - now, kStopPoll));
  }
  return false;
}

// "i" (input), "r" (resize) and unknown codes are skipped.
bool is_played(const CastEvent& event) { return event.code == "o" || event.code == "m"; }

}  // namespace

std::string chapter_line(const std::string& label) {
  return "\x1b[2m\u2500\u2500 " + plain_text(label) + " \u2500\u2500\x1b[0m\r\n";
}

void check_play_options(const PlayOptions& options) {
  if (!(options.speed > 0)) throw InputError("--speed must be a positive number");
  if (!(options.idle_limit_s > 0))
    throw InputError("--idle-limit must be a positive number of seconds");
}

std::vector<double> play_schedule(const Cast& cast, const PlayOptions& options) {
  check_play_options(options);
  std::vector<double> due;
  due.reserve(cast.events.size());
  double previous_s = 0;  // recorded time of the last played event
  double schedule_s = 0;  // playback seconds since start (after capping and speed)
  for (const CastEvent& event : cast.events) {
    if (is_played(event)) {
      schedule_s += std::min(event.time_s - previous_s, options.idle_limit_s) / options.speed;
      previous_s = event.time_s;
    }
    due.push_back(schedule_s);
  }
  return due;
}

PlayResult play_cast(const Cast& cast, std::ostream& out, const PlayOptions& options,
                     const std::atomic<bool>& stop) {
  const std::vector<double> due = play_schedule(cast, options);
  PlayResult result;
  TerminalSanitizer sanitizer;
  bool at_line_start = true;
  const Clock::time_point start = Clock::now();

  for (std::size_t i = 0; i < cast.events.size(); ++i) {
    const CastEvent& event = cast.events[i];
    if (!is_played(event)) continue;
    const auto deadline = start + std::chrono::duration_cast<Clock::duration>(
                                      std::chrono::duration<double>(due[i]));
    if (!wait_until(deadline, stop)) {
      result.stopped = true;
      break;
    }
    std::string text;
    if (event.code == "o") {
      text = options.raw ? event.data : sanitizer.feed(event.data);
    } else {
      text = (at_line_start ? "" : "\r\n") + chapter_line(event.data);
      ++result.markers;
    }
    if (!text.empty()) {
      out << text;
      out.flush();
      at_line_start = text.back() == '\n';
    }
    result.played_s = event.time_s;
  }
  sanitizer.finish();
  result.removed = sanitizer.removed();
  return result;
}

}  // namespace fabriclab::runner
