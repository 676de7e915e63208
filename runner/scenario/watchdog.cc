#include "runner/scenario/watchdog.h"

namespace fabriclab::runner {
namespace {

double seconds_between(Watchdog::Clock::time_point from, Watchdog::Clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

}  // namespace

Watchdog::Watchdog(double stall_s, double deadline_s, Clock::time_point launched)
    : stall_s_(stall_s), deadline_s_(deadline_s), launched_(launched), last_progress_(launched) {}

WatchdogVerdict Watchdog::check(Clock::time_point now, int64_t progress, bool all_finished) {
  if (progress > progress_mark_) {
    progress_mark_ = progress;
    last_progress_ = now;
  }
  if (all_finished) {
    if (!finished_at_) finished_at_ = now;
    if (now - *finished_at_ < kExitGrace) return WatchdogVerdict::kRunning;
  }
  if (seconds_between(last_progress_, now) > stall_s_) return WatchdogVerdict::kStalled;
  if (seconds_between(launched_, now) > deadline_s_) return WatchdogVerdict::kDeadline;
  return WatchdogVerdict::kRunning;
}

}  // namespace fabriclab::runner
