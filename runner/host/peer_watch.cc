#include "runner/host/peer_watch.h"

#include <spdlog/fmt/fmt.h>
#include <spdlog/spdlog.h>

namespace fabriclab::runner::host {

PeerWatch::PeerWatch(std::unique_ptr<ControlStore> store, std::chrono::seconds silent_limit)
    : store_(std::move(store)),
      placement_(store_->placement()),
      silent_limit_(silent_limit),
      last_count_(placement_.hosts.size(), -1),
      last_seen_(placement_.hosts.size(), Clock::now()) {
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
    store_->add("alive/" + std::to_string(placement_.index), 1);
    std::vector<int64_t> counts;
    for (size_t h = 0; h < placement_.hosts.size(); ++h)
      counts.push_back(store_->add("alive/" + std::to_string(h), 0));
    auto stop = store_->try_get_json("run/stop");
    std::lock_guard<std::mutex> lock(mutex_);
    store_error_.clear();
    for (size_t h = 0; h < counts.size(); ++h) {
      if (counts[h] != last_count_[h]) last_seen_[h] = Clock::now();
      last_count_[h] = counts[h];
    }
    if (stop) stop_word_ = stop->get<std::string>();
  } catch (const std::exception& e) {
    std::string what = e.what();
    std::lock_guard<std::mutex> lock(mutex_);
    store_error_ = what.substr(0, what.find('\n'));
  }
}

std::string PeerWatch::problem() const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!placement_.is_lead() && !store_error_.empty())
    return "lost the lead, " + placement_.describe(0) + ": the control store fails (" +
           store_error_ + ")";
  for (int h = 0; h < static_cast<int>(placement_.hosts.size()); ++h) {
    if (h == placement_.index) continue;
    const auto silent = Clock::now() - last_seen_[static_cast<size_t>(h)];
    if (silent > silent_limit_)
      return fmt::format("lost {}: no heartbeat for {} s (host down, runner killed or network cut)",
                         placement_.describe(h),
                         std::chrono::duration_cast<std::chrono::seconds>(silent).count());
  }
  if (!stop_word_.empty()) return stop_word_;
  return "";
}

}  // namespace fabriclab::runner::host
