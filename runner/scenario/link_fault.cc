#include "runner/scenario/link_fault.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "runner/scenario/tcp_sockets.h"
#include "runner/topology/netns_links.h"

namespace fabriclab::runner {
namespace {

// After the fault is undone, how long to wait for TCP to recover before the
// summary is written without it.
constexpr auto kLongestRecovery = std::chrono::seconds(60);

// A connection between two lab ranks (not loopback).
bool between_ranks(const TcpConnection& c) {
  return c.local != c.remote && c.remote.rfind("127.", 0) != 0;
}

class LinksDown : public FaultAction {
 public:
  explicit LinksDown(std::vector<LinkFarEnd> ends) : ends_(std::move(ends)) {
    for (const LinkFarEnd& end : ends_)
      sockets_.push_back(std::make_unique<NetnsLinks>(end.netns_fd, end.netns));
  }
  void begin() override { set_links(false); }
  void end() override { set_links(true); }
  nlohmann::json links() const override {
    nlohmann::json links = nlohmann::json::array();
    for (const LinkFarEnd& end : ends_) links.push_back(end.link);
    return links;
  }

 private:
  void set_links(bool up) {
    for (size_t i = 0; i < ends_.size(); ++i) {
      if (up)
        sockets_[i]->set_up(ends_[i].device);
      else
        sockets_[i]->set_down(ends_[i].device);
    }
  }

  std::vector<LinkFarEnd> ends_;
  std::vector<std::unique_ptr<NetnsLinks>> sockets_;  // one per end, bound to its namespace
};

}  // namespace

std::unique_ptr<FaultAction> take_links_down(std::vector<LinkFarEnd> ends) {
  return std::make_unique<LinksDown>(std::move(ends));
}

LinkFault::LinkFault(const LinkFaultSpec& spec, std::unique_ptr<FaultAction> action,
                     std::vector<int> rank_netns)
    : spec_(spec), start_(spec), action_(std::move(action)), rank_netns_(std::move(rank_netns)) {}

LinkFault::~LinkFault() {
  if (phase_ != Phase::kInForce) return;
  try {
    action_->end();
  } catch (const std::exception& e) {
    spdlog::warn("link fault: could not undo it: {}", e.what());
  }
}

void LinkFault::sample_tcp(Clock::time_point now) {
  uint32_t backoff = 0, timeouts = 0;
  double rto_ms = 0;
  bool any = false;
  for (int netns : rank_netns_) {
    std::vector<TcpConnection> connections;
    try {
      connections = read_tcp_connections(netns);
    } catch (const std::exception& e) {
      spdlog::debug("link fault: {}", e.what());  // counters are for the report only
      continue;
    }
    for (const TcpConnection& c : connections) {
      if (!between_ranks(c)) continue;
      any = true;
      backoff = std::max(backoff, c.backoff);
      timeouts = std::max(timeouts, c.retransmits);
      rto_ms = std::max(rto_ms, c.rto_ms);
    }
  }
  if (phase_ == Phase::kWaiting) {
    if (any) rto_before_ms_ = rto_ms;
    return;
  }
  max_backoff_ = std::max(max_backoff_, backoff);
  max_timeouts_ = std::max(max_timeouts_, timeouts);
  max_rto_ms_ = std::max(max_rto_ms_, rto_ms);
  const double since_begun = seconds_between(begun_at_, now);
  if (trace_.empty() || trace_.back()[1] != backoff || trace_.back()[2] != rto_ms)
    trace_.push_back({since_begun, backoff, rto_ms});
  if (phase_ == Phase::kWatchingTcp && backoff == 0 && timeouts == 0)
    recovered_after_up_s_ = seconds_between(ended_at_, now);
}

LinkFault::Event LinkFault::backoff_event() const {
  nlohmann::json recovered = nullptr;
  if (recovered_after_up_s_) recovered = *recovered_after_up_s_;
  return {"tcp_backoff",
          {{"links", action_->links()},
           {"rto_before_ms", rto_before_ms_},
           {"max_backoff", max_backoff_},
           {"max_timeouts", max_timeouts_},
           {"max_rto_ms", max_rto_ms_},
           {"recovered_after_up_s", recovered},
           {"trace", trace_}}};
}

// link_down keeps the fields it always had (planned_down_s); an impairment
// change says its length as planned_s.
LinkFault::Event LinkFault::begin_event(int64_t steps_done) const {
  nlohmann::json fields = {{"links", action_->links()},
                           {down() ? "planned_down_s" : "planned_s", spec_.length_s},
                           {"fault", print_link_fault(spec_)},
                           {"steps_done", steps_done}};
  fields.update(action_->begin_fields());
  return {down() ? "link_down" : "impair_change", std::move(fields)};
}

LinkFault::Event LinkFault::end_event(nlohmann::json fields) const {
  fields["links"] = action_->links();
  fields[down() ? "down_s" : "changed_s"] = seconds_between(begun_at_, ended_at_);
  fields.update(action_->end_fields());
  return {down() ? "link_up" : "impair_restore", std::move(fields)};
}

std::vector<LinkFault::Event> LinkFault::poll(Clock::time_point now, int64_t steps_done,
                                              int64_t any_rank_steps) {
  std::vector<Event> events;
  const bool due = start_.due(now, steps_done, any_rank_steps);
  switch (phase_) {
    case Phase::kWaiting: {
      sample_tcp(now);
      if (!due) break;
      action_->begin();
      phase_ = Phase::kInForce;
      begun_at_ = now;
      spdlog::info("link fault: {} on {}", print_link_fault(spec_), action_->links().dump());
      events.push_back(begin_event(steps_done));
      sample_tcp(now);
      break;
    }
    case Phase::kInForce:
      sample_tcp(now);
      if (seconds_between(begun_at_, now) < spec_.length_s) break;
      action_->end();
      ended_at_ = Clock::now();
      phase_ = Phase::kWatchingTcp;
      events.push_back(end_event({{"steps_done", steps_done}}));
      break;
    case Phase::kWatchingTcp:
      sample_tcp(now);
      if (recovered_after_up_s_ || now - ended_at_ > kLongestRecovery) {
        events.push_back(backoff_event());
        phase_ = Phase::kDone;
      }
      break;
    case Phase::kDone:
      break;
  }
  return events;
}

LinkFault::Clock::duration LinkFault::due_in(Clock::time_point now) const {
  if (phase_ != Phase::kInForce) return Clock::duration::max();
  const auto end_due = begun_at_ + std::chrono::duration_cast<Clock::duration>(
                                      std::chrono::duration<double>(spec_.length_s));
  return std::max(Clock::duration::zero(), end_due - now);
}

std::vector<LinkFault::Event> LinkFault::finish() {
  std::vector<Event> events;
  if (phase_ == Phase::kInForce) {
    action_->end();  // on a throw the destructor tries again
    ended_at_ = Clock::now();
    phase_ = Phase::kWatchingTcp;
    events.push_back(end_event({{"cut_short", true}}));
  }
  if (phase_ == Phase::kWatchingTcp) {
    events.push_back(backoff_event());
    phase_ = Phase::kDone;
  }
  return events;
}

}  // namespace fabriclab::runner
