#include "runner/host/peer_watch.h"

#include <spdlog/fmt/fmt.h>
#include <spdlog/spdlog.h>

#include <algorithm>

namespace fabriclab::runner::host {

PeerWatch::PeerWatch(std::unique_ptr<ControlStore> store, std::chrono::seconds silent_limit)
    : store_(std::move(store)),
      roster_(store_->roster()),
      silent_limit_(silent_limit),
      last_count_(roster_.hosts.size(), -1),
      last_seen_(roster_.hosts.size(), Clock::now()),
      done_(roster_.hosts.size(), false) {
  thread_ = std::thread([this] { loop(); });
}

PeerWatch::~PeerWatch() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    quit_ = true;
  }
  thread_.join();
}

void PeerWatch::loop() {
  while (true) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (quit_) return;
    }
    beat();
    std::this_thread::sleep_for(kBeatInterval);
  }
}

void PeerWatch::beat() {
  try {
    store_->add("alive/" + std::to_string(roster_.index), 1);
    std::vector<int64_t> counts;
    for (size_t h = 0; h < roster_.hosts.size(); ++h)
      counts.push_back(store_->add("alive/" + std::to_string(h), 0));
    // A host that finished the run says "done" (host_run.cc) and stops
    // beating: with more than two hosts the others may still be waiting
    // for a lost one, and must not count it lost too. Asked only of a host
    // that did not beat since the last look (one request less per host).
    std::vector<size_t> now_done;
    for (size_t h = 0; h < roster_.hosts.size(); ++h) {
      if (!done_[h] && counts[h] == last_count_[h] && store_->has("done/" + std::to_string(h)))
        now_done.push_back(h);
    }
    auto stop = store_->try_get_json("run/stop");
    std::lock_guard<std::mutex> lock(mutex_);
    store_error_.clear();
    for (size_t h = 0; h < counts.size(); ++h) {
      if (counts[h] != last_count_[h]) last_seen_[h] = Clock::now();
      last_count_[h] = counts[h];
    }
    for (size_t h : now_done) done_[h] = true;
    if (stop) stop_word_ = stop->get<std::string>();
  } catch (const std::exception& e) {
    std::string what = e.what();
    what = what.substr(0, what.find('\n'));
    // A request that timed out is silence (an impaired or cut link), which
    // the silence clock judges; a refused or reset connection means the
    // lead's runner, which serves the store, is gone.
    if (!is_store_timeout(what)) {
      std::lock_guard<std::mutex> lock(mutex_);
      store_error_ = what;
    }
    // The answer to a timed-out request may still come and be taken for
    // the next one's: start over on a fresh connection.
    try {
      store_ = store_->another_client();
    } catch (const std::exception&) {
      // unreachable for now; the next beat tries again on the old one
    }
  }
}

std::string PeerWatch::problem() const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!roster_.is_lead() && !store_error_.empty())
    return "lost the lead, " + roster_.describe(0) + ": the control store fails (" + store_error_ +
           ")";
  // Every silent host by name (with more than two, several may go at once),
  // and the longest silence.
  std::string lost;
  Clock::duration longest{};
  for (int h : silent_hosts_locked()) {
    lost += (lost.empty() ? "" : ", ") + roster_.describe(h);
    longest = std::max(longest, Clock::now() - last_seen_[static_cast<size_t>(h)]);
  }
  if (!lost.empty())
    return fmt::format("lost {}: no heartbeat for {} s (host down, runner killed or network cut)",
                       lost, std::chrono::duration_cast<std::chrono::seconds>(longest).count());
  if (!stop_word_.empty()) return stop_word_;
  return "";
}

std::vector<int> PeerWatch::silent_hosts() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return silent_hosts_locked();
}

std::vector<int> PeerWatch::silent_hosts_locked() const {
  std::vector<int> silent;
  for (int h = 0; h < static_cast<int>(roster_.hosts.size()); ++h) {
    if (h != roster_.index && !done_[static_cast<size_t>(h)] &&
        Clock::now() - last_seen_[static_cast<size_t>(h)] > silent_limit_)
      silent.push_back(h);
  }
  return silent;
}

void PeerWatch::set_silent_limit(std::chrono::seconds limit) {
  std::lock_guard<std::mutex> lock(mutex_);
  silent_limit_ = limit;
  for (auto& seen : last_seen_) seen = Clock::now();
}

}  // namespace fabriclab::runner::host
