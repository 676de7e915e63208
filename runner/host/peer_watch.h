// Is every other lab host still there? A thread beats this host's heartbeat
// counter in the control store ("alive/<host index>") every kBeatInterval
// and reads the others'. A host whose counter has not moved for
// `silent_limit` is lost (it is down, its runner was killed, or the network
// between us is cut); so is the lead, for a follower whose connection to the
// store is refused or reset (the lead's runner, which serves it, is gone).
// A request that times out counts as silence, and the next beat reconnects.
// A runner that ends the run early leaves its reason under "run/stop"
// (host_run.cc); the others see it here. A host that finished the run
// ("done/<h>") is silent, not lost: with more than two hosts the others may
// still be waiting for a lost one.
//
// The scenario watchdog polls problem() (ScenarioContext::external_failure),
// so a lost peer ends the scenario within about `silent_limit`, well inside
// any lab's deadline, with a message naming the host.
//
// The heartbeats travel between the lab addresses, so a scenario's
// impairment hits them too: under `loss 100%` every host falls silent. For
// an impaired scenario the runner therefore raises the limit to the
// scenario's deadline (set_silent_limit()); the lab's own watchdog (stall,
// deadline) still ends the scenario, and a host really lost is then named
// at the deadline at the latest.
//
// Thread safety: problem() and set_silent_limit() from any thread. The destructor
// stops and joins the thread (at most one store request, ~kRequestTimeout).
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "runner/host/control_store.h"

namespace fabriclab::runner::host {

class PeerWatch {
 public:
  static constexpr std::chrono::milliseconds kBeatInterval{500};

  PeerWatch(std::unique_ptr<ControlStore> store, std::chrono::seconds silent_limit);
  ~PeerWatch();
  PeerWatch(const PeerWatch&) = delete;
  PeerWatch& operator=(const PeerWatch&) = delete;

  // "" while all is well; else one sentence naming the host(s) and what happened.
  std::string problem() const;
  // The hosts silent past the limit now (their places in the host list).
  std::vector<int> silent_hosts() const;
  // Changes the limit and restarts every host's silence clock (we just heard
  // from all of them, or are about to give them a new chance).
  void set_silent_limit(std::chrono::seconds limit);

 private:
  using Clock = std::chrono::steady_clock;
  void loop();
  void beat();
  std::vector<int> silent_hosts_locked() const;  // mutex_ held

  std::unique_ptr<ControlStore> store_;
  const HostRoster roster_;
  std::chrono::seconds silent_limit_;  // guarded by mutex_
  mutable std::mutex mutex_;
  std::vector<int64_t> last_count_;
  std::vector<Clock::time_point> last_seen_;
  std::vector<bool> done_;   // hosts that finished the run ("done/<h>"): never lost
  std::string store_error_;  // the last failed request, "" after a good one
  std::string stop_word_;    // "run/stop", when a host has set it
  bool quit_ = false;
  std::thread thread_;
};

}  // namespace fabriclab::runner::host
