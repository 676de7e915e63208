// A link that fails while the job runs (lab.toml `link_fault`,
// runner/lab/link_fault_spec.h): at a step or a time of the job the far end
// of each named link -- the switch's port toward the rank -- is set down by
// rtnetlink (so the rank's own device loses its carrier and keeps its
// routes, as a host does when its cable or optic fails), and set up again
// after the fault's length. Meanwhile and until every connection has heard
// from its peer again, it reads the ranks' TCP retransmission timers over
// sock_diag (tcp_sockets.h): how far they backed off.
//
// The scenario runner calls poll() from its watch loop and records what it
// returns as metrics.jsonl events (recordings/FORMAT.md): `link_down`,
// `link_up`, and `tcp_backoff` once TCP has recovered (or the scenario ends).
//
// Cleanup: the destructor sets a link that is still down up again; a run
// killed while a link is down leaves it down in a namespace that
// `fabriclab cleanup` removes with the rest (the ledger has it), so nothing
// outlives the namespaces.
// Errors: poll() throws std::runtime_error when the kernel refuses the
// change; the runner fails the scenario with it.
// Thread safety: one owner, one thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runner/lab/link_fault_spec.h"
#include "runner/scenario/scenario_fault.h"
#include "runner/topology/lab_network.h"

namespace fabriclab::runner {

class NetnsLinks;

class LinkFault : public ScenarioFault {
 public:
  // Its events: "link_down", "link_up", "tcp_backoff".

  // `ends`: the links to fail (LabNetwork::link_far_ends); `rank_netns`:
  // the namespaces whose TCP connections are watched.
  LinkFault(const LinkFaultSpec& spec, std::vector<LinkFarEnd> ends, std::vector<int> rank_netns);
  ~LinkFault() override;  // sets a link still down up again
  LinkFault(const LinkFault&) = delete;
  LinkFault& operator=(const LinkFault&) = delete;

  // The job's progress now: `steps_done` steps completed by every rank,
  // `any_rank_steps` by the rank furthest ahead. Returns what happened.
  std::vector<Event> poll(Clock::time_point now, int64_t steps_done,
                          int64_t any_rank_steps) override;
  // How long the watch loop may sleep before the next change is due.
  Clock::duration due_in(Clock::time_point now) const override;
  // At the scenario's end: the link up again if it is down, and the TCP
  // summary if it was not written yet.
  std::vector<Event> finish() override;

 private:
  enum class Phase { kWaiting, kDown, kWatchingTcp, kDone };
  void set_links(bool up);
  nlohmann::json links_json() const;
  void sample_tcp(Clock::time_point now);
  Event backoff_event() const;

  LinkFaultSpec spec_;
  std::vector<LinkFarEnd> ends_;
  std::vector<int> rank_netns_;
  std::vector<std::unique_ptr<NetnsLinks>> sockets_;  // one per end, bound to its namespace
  Phase phase_ = Phase::kWaiting;
  std::optional<Clock::time_point> first_step_at_;
  Clock::time_point down_at_{};
  Clock::time_point up_at_{};
  // What the timers did, from the link going down until TCP recovered.
  uint32_t max_backoff_ = 0;
  uint32_t max_timeouts_ = 0;
  double max_rto_ms_ = 0;
  double rto_before_ms_ = 0;  // the largest timer just before the link went down
  std::optional<double> recovered_after_up_s_;
  nlohmann::json trace_ = nlohmann::json::array();  // [s since down, backoff, rto_ms] on each change
};

}  // namespace fabriclab::runner
