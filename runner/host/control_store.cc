#include "runner/host/control_store.h"

#include "runner/host/store_connection.h"
#include "runner/process/stop_signals.h"

#include <spdlog/spdlog.h>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <algorithm>
#include <stdexcept>
#include <thread>

namespace fabriclab::runner::host {
namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kPollInterval = std::chrono::milliseconds(100);
// One request to the store: a connected store answers in milliseconds.
constexpr auto kRequestTimeout = std::chrono::seconds(10);

// The first line of an error (c10d appends a stack trace to its own).
std::string first_line(const std::exception& e) {
  const std::string what = e.what();
  return what.substr(0, what.find('\n'));
}

// The lead's server. c10d's TCPStore object also connects a client of its
// own to it (unused here: it lives and dies in the lead's process).
std::unique_ptr<c10d::TCPStore> serve_store(const std::string& lead, int port,
                                            std::chrono::milliseconds timeout) {
  c10d::TCPStoreOptions options;
  options.port = static_cast<uint16_t>(port);
  options.isServer = true;
  options.waitWorkers = false;  // hosts join through our own barrier, naming who is missing
  options.timeout = timeout;
  try {
    return std::make_unique<c10d::TCPStore>(lead, options);
  } catch (const std::exception& e) {
    throw std::runtime_error("cannot serve the control store at " + lead + ":" +
                             std::to_string(port) + ": " + first_line(e));
  }
}

std::unique_ptr<StoreConnection> connect_store(const std::string& lead, int port,
                                               std::chrono::milliseconds connect_timeout) {
  try {
    return std::make_unique<StoreConnection>(lead, port, connect_timeout);
  } catch (const std::exception& e) {
    throw std::runtime_error("cannot reach the control store at " + lead + ":" +
                             std::to_string(port) + ": " + first_line(e));
  }
}

std::vector<uint8_t> bytes_of(const std::string& text) { return {text.begin(), text.end()}; }

std::string whole_seconds(std::chrono::milliseconds timeout) {
  return std::to_string(std::chrono::duration_cast<std::chrono::seconds>(timeout).count()) + " s";
}

// Polls ready() every kPollInterval until it holds. Throws abort()'s reason as
// soon as it gives one, or timed_out()'s message once `timeout` has passed.
void poll_until(const std::function<bool()>& ready, std::chrono::milliseconds timeout,
                const std::function<std::string()>& abort,
                const std::function<std::string()>& timed_out) {
  const auto give_up = Clock::now() + timeout;
  while (!ready()) {
    if (abort) {
      std::string why = abort();
      if (!why.empty()) throw std::runtime_error(why);
    }
    if (Clock::now() > give_up) throw std::runtime_error(timed_out());
    std::this_thread::sleep_for(kPollInterval);
  }
}

}  // namespace

bool is_store_timeout(const std::string& what) {
  return what.find("Timeout") != std::string::npos || what.find("timed out") != std::string::npos;
}

template <typename Request>
auto ControlStore::request(Request run) {
  // The store's traffic crosses the lab link, so a scenario's impairment
  // (up to loss 100%) can swallow a request. A timed-out request is retried
  // on a fresh connection (the late answer to the old one must not be read
  // as the answer to the next) for up to kRetryWindow; any other failure,
  // or a timeout beyond that, is thrown with its first line only (c10d
  // appends a stack trace).
  const auto give_up = Clock::now() + kRetryWindow;
  while (true) {
    try {
      if (!client_) client_ = connect_store(roster_.lead(), port_, kRequestTimeout);
      return run(*client_);
    } catch (const std::exception& e) {
      // A connection that failed once is never used again (store_connection.h).
      client_.reset();
      const std::string what = first_line(e);
      if (!is_store_timeout(what) || Clock::now() > give_up) throw std::runtime_error(what);
      spdlog::debug("control store: {}; reconnecting", what);
    }
  }
}

ControlStore::ControlStore(const HostRoster& roster, int port,
                           std::chrono::milliseconds connect_timeout)
    : roster_(roster), port_(port) {
  if (roster_.is_lead()) server_ = serve_store(roster_.lead(), port, connect_timeout);
  // A refused connection (the lead not started yet) and "no route to host"
  // (a lead whose address is not up yet: a VM still booting) fail at once.
  // Hosts may start in any order within connect_timeout, so keep trying
  // until it has passed.
  const auto give_up = Clock::now() + connect_timeout;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(give_up - Clock::now());
    try {
      client_ = connect_store(roster_.lead(), port,
                              std::min(std::max(left, std::chrono::milliseconds(1000)),
                                       std::chrono::milliseconds(kRequestTimeout)));
      return;
    } catch (const std::runtime_error& e) {
      // A Ctrl-C (the runner's StopSignals) ends the wait between tries.
      if (Clock::now() + std::chrono::seconds(1) >= give_up || StopSignals::stop_requested())
        throw;
      spdlog::debug("{}; trying again", e.what());
      std::this_thread::sleep_for(std::chrono::seconds(1));
    }
  }
}

ControlStore::ControlStore(const HostRoster& roster, int port) : roster_(roster), port_(port) {
  client_ = connect_store(roster_.lead(), port, kRequestTimeout);
}

ControlStore::~ControlStore() = default;

std::unique_ptr<ControlStore> ControlStore::another_client() const {
  return std::unique_ptr<ControlStore>(new ControlStore(roster_, port_));
}

void ControlStore::set_json(const std::string& key, const nlohmann::json& value) {
  const std::vector<uint8_t> bytes = bytes_of(value.dump());
  request([&](StoreConnection& store) {
    store.set(key, bytes);
    return true;
  });
}

bool ControlStore::has(const std::string& key) {
  return request([&](StoreConnection& store) { return store.check(key); });
}

std::optional<nlohmann::json> ControlStore::try_get_json(const std::string& key) {
  if (!has(key)) return std::nullopt;
  const std::vector<uint8_t> bytes =
      request([&](StoreConnection& store) { return store.get(key); });
  return nlohmann::json::parse(std::string(bytes.begin(), bytes.end()));
}

nlohmann::json ControlStore::wait_json(const std::string& key, std::chrono::milliseconds timeout,
                                       const std::string& what,
                                       const std::function<std::string()>& abort) {
  std::optional<nlohmann::json> value;
  poll_until([&] { return (value = try_get_json(key)).has_value(); }, timeout, abort,
             [&] { return what + ": nothing within " + whole_seconds(timeout); });
  return *value;
}

int64_t ControlStore::add(const std::string& key, int64_t delta) {
  // Not retried (the heartbeat's): a retry could count twice.
  if (!client_) client_ = connect_store(roster_.lead(), port_, kRequestTimeout);
  try {
    return client_->add(key, delta);
  } catch (const std::exception&) {
    client_.reset();
    throw;
  }
}

void ControlStore::barrier(const std::string& name, std::chrono::milliseconds timeout,
                           const std::string& what, const std::function<std::string()>& abort) {
  set_json(name + "/" + std::to_string(roster_.index), true);
  std::string missing;
  poll_until(
      [&] {
        missing.clear();
        for (int h = 0; h < static_cast<int>(roster_.hosts.size()); ++h) {
          if (!has(name + "/" + std::to_string(h)))
            missing += (missing.empty() ? "" : ", ") + roster_.describe(h);
        }
        return missing.empty();
      },
      timeout, abort,
      [&] { return what + ": " + missing + " did not get there within " + whole_seconds(timeout); });
}

}  // namespace fabriclab::runner::host
