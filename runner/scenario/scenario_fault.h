// A fault the scenario runner drives while the job runs (lab.toml
// `link_fault`): a rank's link that flaps (link_fault.h) or a fabric uplink
// that fails and is routed around (uplink_fault.h). The runner polls it from
// its watch loop, records what poll() returns as metrics.jsonl events
// (recordings/FORMAT.md), wakes for its next change (due_in), and calls
// finish() at the scenario's end, however it ends.
// Thread safety: one owner, one thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

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

}  // namespace fabriclab::runner
