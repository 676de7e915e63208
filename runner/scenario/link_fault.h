// A link fault while the job runs (lab.toml `link_fault`,
// runner/lab/link_fault_spec.h): at a step or a time of the job something
// happens to the scenario's links -- a FaultAction -- and is undone after
// the fault's length:
//   - down (take_links_down() below): the far end of each named link -- the
//     switch's port toward the rank -- is set down by rtnetlink (so the
//     rank's own device loses its carrier and keeps its routes, as a host
//     does when its cable or optic fails), and set up again;
//   - impair (impair_change.h): the links' impairment becomes another,
//     through the scenario's impairment backend, and the scenario's own is
//     restored.
// Meanwhile and until every connection has heard from its peer again, it
// reads the ranks' TCP retransmission timers over sock_diag
// (tcp_sockets.h): how far they backed off.
//
// A fabric uplink's fault (routes withdrawn after a detection time) is
// uplink_fault.h's; both are ScenarioFaults (scenario_fault.h).
//
// The scenario runner calls poll() from its watch loop and records what it
// returns as metrics.jsonl events (recordings/FORMAT.md): `link_down` and
// `link_up` (or `impair_change` and `impair_restore`), and `tcp_backoff`
// once TCP has recovered (or the scenario ends).
//
// Cleanup: finish() and the destructor undo a fault still in force; a run
// killed meanwhile leaves a link down (or a netem qdisc changed) in a
// namespace that `fabriclab cleanup` removes with the rest (the ledger has
// it), and a userspace impairment ends with the process, so nothing
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

// What a fault does to its links, and undoes. begin() and end() throw
// std::runtime_error; after a throw of begin() nothing of it is in force.
class FaultAction {
 public:
  virtual ~FaultAction() = default;
  virtual void begin() = 0;
  virtual void end() = 0;
  virtual nlohmann::json links() const = 0;  // the links it acts on, by name
  // Fields of its own for the event that begins it and the one that ends it.
  virtual nlohmann::json begin_fields() const { return nlohmann::json::object(); }
  virtual nlohmann::json end_fields() const { return nlohmann::json::object(); }
};

// The far ends of `ends` down, then up (LabNetwork::link_far_ends).
std::unique_ptr<FaultAction> take_links_down(std::vector<LinkFarEnd> ends);

class LinkFault : public ScenarioFault {
 public:
  // Its events: "link_down" and "link_up" (or "impair_change" and
  // "impair_restore"), "tcp_backoff".

  // `action`: what the fault does (its kind is spec.kind's); `rank_netns`:
  // the namespaces whose TCP connections are watched.
  LinkFault(const LinkFaultSpec& spec, std::unique_ptr<FaultAction> action,
            std::vector<int> rank_netns);
  ~LinkFault() override;  // undoes a fault still in force
  LinkFault(const LinkFault&) = delete;
  LinkFault& operator=(const LinkFault&) = delete;

  // The job's progress now: `steps_done` steps completed by every rank,
  // `any_rank_steps` by the rank furthest ahead. Returns what happened.
  std::vector<Event> poll(Clock::time_point now, int64_t steps_done,
                          int64_t any_rank_steps) override;
  // How long the watch loop may sleep before the next change is due.
  Clock::duration due_in(Clock::time_point now) const override;
  // At the scenario's end: the fault undone if it is in force, and the TCP
  // summary if it was not written yet.
  std::vector<Event> finish() override;

 private:
  enum class Phase { kWaiting, kInForce, kWatchingTcp, kDone };
  bool down() const { return spec_.kind == LinkFaultKind::kDown; }
  Event begin_event(int64_t steps_done) const;
  Event end_event(nlohmann::json fields) const;
  void sample_tcp(Clock::time_point now);
  Event backoff_event() const;

  LinkFaultSpec spec_;
  FaultStart start_;
  std::unique_ptr<FaultAction> action_;
  std::vector<int> rank_netns_;
  Phase phase_ = Phase::kWaiting;
  Clock::time_point begun_at_{};
  Clock::time_point ended_at_{};
  // What the timers did, from the fault's start until TCP recovered.
  uint32_t max_backoff_ = 0;
  uint32_t max_timeouts_ = 0;
  double max_rto_ms_ = 0;
  double rto_before_ms_ = 0;  // the largest timer just before the fault began
  std::optional<double> recovered_after_up_s_;
  nlohmann::json trace_ = nlohmann::json::array();  // [s since begun, backoff, rto_ms] on each change
};

}  // namespace fabriclab::runner
