// Is every other lab host still there? A thread beats this host's heartbeat
// counter in the control store ("alive/<host index>") every kBeatInterval
// and reads the others'. A host whose counter has not moved for
// `silent_limit` is lost (it is down, its runner was killed, or the network
// between us is cut); so is the lead, for a follower whose requests to the
// store fail (the lead's runner, which serves the store, is gone).
// A runner that ends the run early leaves its reason under "run/stop"
// (host_run.cc); the others see it here.
//
// The scenario watchdog polls problem() (ScenarioContext::external_failure),
// so a lost peer ends the scenario within about `silent_limit`, well inside
// any lab's deadline, with a message naming the host.
//
// Thread safety: problem() from any thread. The destructor
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

  // "" while all is well; else one sentence naming the host and what happened.
  std::string problem() const;

 private:
  using Clock = std::chrono::steady_clock;
  void loop();
  void beat();

  std::unique_ptr<ControlStore> store_;
  const HostPlacement placement_;
  const std::chrono::seconds silent_limit_;
  mutable std::mutex mutex_;
  std::vector<int64_t> last_count_;
  std::vector<Clock::time_point> last_seen_;
  std::string store_error_;  // the last failed request, "" after a good one
  std::string stop_word_;    // "run/stop", when a host has set it
  bool quit_ = false;
  std::thread thread_;
};

}  // namespace fabriclab::runner::host
