// The scenario runner's two limits as a decision on the times it is given:
//   stalled   no progress for stall_s: no rank completed a step or reported
//             its start (counted from launch: ranks that cannot even
//             rendezvous are as stuck)
//   deadline  deadline_s since launch
// Ranks that have all written their final event get kExitGrace to exit
// before either limit may strike (under load a finished job was once called
// late). The stall is checked first.
//
// The runner feeds it steady_clock readings once per poll; tests feed it
// chosen times, so the limits are tested without sleeping against a shared
// CPU (doc/ci.md: no wall-clock bound in a test).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>

namespace fabriclab::runner {

enum class WatchdogVerdict { kRunning, kStalled, kDeadline };

class Watchdog {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::chrono::seconds kExitGrace{10};

  Watchdog(double stall_s, double deadline_s, Clock::time_point launched);

  // One poll at `now`. `progress` (steps and starts, summed over ranks) is
  // progress when it grows; `all_finished`: every rank has written its final
  // event.
  WatchdogVerdict check(Clock::time_point now, int64_t progress, bool all_finished);

 private:
  double stall_s_;
  double deadline_s_;
  Clock::time_point launched_;
  Clock::time_point last_progress_;
  int64_t progress_mark_ = 0;
  std::optional<Clock::time_point> finished_at_;
};

}  // namespace fabriclab::runner
