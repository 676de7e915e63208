// A fault the scenario runner drives while the job runs (lab.toml
// `link_fault`): ranks' links that go down or change their impairment
// (link_fault.h), or a fabric uplink that fails and is routed around
// (uplink_fault.h). FaultStart below says when either begins. The runner polls it from
// its watch loop, records what poll() returns as metrics.jsonl events
// (recordings/FORMAT.md), wakes for its next change (due_in), and calls
// finish() at the scenario's end, however it ends.
// Thread safety: one owner, one thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runner/lab/link_fault_spec.h"

namespace fabriclab::runner {

class ScenarioFault {
 public:
  using Clock = std::chrono::steady_clock;
  struct Event {
    std::string kind;  // "link_down", "link_up", "tcp_backoff", "route_withdrawn", ...
    nlohmann::json fields;
  };
  virtual ~ScenarioFault() = default;
  // The job's progress now: `steps_done` steps completed by every rank,
  // `any_rank_steps` by the rank furthest ahead. Returns what happened.
  virtual std::vector<Event> poll(Clock::time_point now, int64_t steps_done,
                                  int64_t any_rank_steps) = 0;
  // How long the watch loop may sleep before the next change is due.
  virtual Clock::duration due_in(Clock::time_point now) const = 0;
  // At the scenario's end: everything set back as it was, and what is left to say.
  virtual std::vector<Event> finish() = 0;
};

inline double seconds_between(ScenarioFault::Clock::time_point a,
                              ScenarioFault::Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// When a fault is due, as its spec says: every rank has completed step N,
// or N s have passed since the job's first step (the first step any rank
// completes, seen at the first poll that shows it).
class FaultStart {
 public:
  explicit FaultStart(const LinkFaultSpec& spec) : at_step_(spec.at_step), at_s_(spec.at_s) {}
  bool due(ScenarioFault::Clock::time_point now, int64_t steps_done, int64_t any_rank_steps) {
    if (!first_step_at_ && any_rank_steps >= 1) first_step_at_ = now;
    if (at_step_ > 0) return steps_done >= at_step_;
    return first_step_at_ && seconds_between(*first_step_at_, now) >= at_s_;
  }

 private:
  int64_t at_step_;
  double at_s_;
  std::optional<ScenarioFault::Clock::time_point> first_step_at_;
};

}  // namespace fabriclab::runner
