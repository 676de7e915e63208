// The control channel of a host-mode run: c10d's TCPStore (the key-value
// store torchrun and DDP rendezvous with), served by the lead runner, so
// host-mode runners need no server of their own. Every host, the lead too,
// talks to it through a StoreConnection (store_connection.h: c10d's protocol
// without c10d 1.13's client, whose listener thread aborted a follower whose
// lead went while it connected). What goes through it
// (keys are documented where they are written, host_run.cc):
//   the run (id, seed, lab, scenarios) from the lead; barriers before and
//   after each scenario; each follower's scenario outcome and events, as
//   JSON; a heartbeat per host (peer_watch.h); a "stop" word.
//
// Every wait here polls check() (one short request) instead of blocking in
// get()/wait(), so a wait can end early when the caller's `abort` says so
// (a lost peer, Ctrl-C) and never hangs past its timeout.
//
// c10d 1.13's TCPStore server listens on every address of the lead (port
// `port`); open that port between the lab hosts (doc/vm-pair.md).
//
// Thread safety: one ControlStore per thread (a client is one socket);
// another_client() gives a second thread its own connection.
// Errors: std::runtime_error naming the lead and port when the store cannot
// be reached; the waits throw std::runtime_error naming what they waited for.
// The store's traffic crosses the (impaired) lab link: requests that time out
// are retried on a fresh connection for up to kRetryWindow.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "runner/host/host_roster.h"

namespace c10d {
class TCPStore;
}

namespace fabriclab::runner::host {
class StoreConnection;
}

namespace fabriclab::runner::host {

// Whether a store error (its message) is a request that timed out -- on an
// impaired link, silence -- rather than a refused or reset connection.
bool is_store_timeout(const std::string& what);

class ControlStore {
 public:
  // How long a request swallowed by an impaired link is retried (request()).
  static constexpr std::chrono::seconds kRetryWindow{30};

  // The lead starts the server and connects to it; a follower connects,
  // retrying for up to `connect_timeout` (the lead may start later).
  ControlStore(const HostRoster& roster, int port, std::chrono::milliseconds connect_timeout);
  ~ControlStore();
  ControlStore(const ControlStore&) = delete;
  ControlStore& operator=(const ControlStore&) = delete;

  // A second connection to the same store (for another thread).
  std::unique_ptr<ControlStore> another_client() const;

  void set_json(const std::string& key, const nlohmann::json& value);
  std::optional<nlohmann::json> try_get_json(const std::string& key);
  // Polls for `key`; throws after `timeout`, or as soon as abort() returns a
  // non-empty reason (which the exception carries). `what` names the wait.
  nlohmann::json wait_json(const std::string& key, std::chrono::milliseconds timeout,
                           const std::string& what, const std::function<std::string()>& abort = {});
  int64_t add(const std::string& key, int64_t delta);
  bool has(const std::string& key);

  // A barrier: this host arrives at `name`, then waits until every host has.
  // On timeout the message names the hosts that did not arrive.
  void barrier(const std::string& name, std::chrono::milliseconds timeout, const std::string& what,
               const std::function<std::string()>& abort = {});

  const HostRoster& roster() const { return roster_; }

 private:
  ControlStore(const HostRoster& roster, int port);  // client of an existing server
  template <typename Request>
  auto request(Request run);
  HostRoster roster_;
  int port_;
  std::unique_ptr<c10d::TCPStore> server_;  // the lead's; owns the listening socket
  std::unique_ptr<StoreConnection> client_;
};

}  // namespace fabriclab::runner::host
