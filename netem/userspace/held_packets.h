// The packets the userspace backend is holding back, ordered by release time:
// netem's "tfifo" (a queue sorted by time_to_send) for packets we only know by
// their NFQUEUE id. Ties keep arrival order, as netem's do.
//
// Not thread-safe (one queue worker owns it). Times are CLOCK_MONOTONIC ns.
#pragma once

#include <algorithm>
#include <cstdint>
#include <queue>
#include <vector>

namespace fabriclab::netem::userspace {

struct HeldPacket {
  int64_t release_ns = 0;
  uint64_t arrival = 0;  // arrival order, breaks ties
  uint32_t id = 0;       // NFQUEUE packet id

  bool operator>(const HeldPacket& other) const {
    return release_ns != other.release_ns ? release_ns > other.release_ns : arrival > other.arrival;
  }
};

class HeldPackets {
 public:
  void push(int64_t release_ns, uint32_t id) {
    heap_.push({release_ns, arrivals_++, id});
    latest_release_ns_ = std::max(latest_release_ns_, release_ns);
  }
  // The latest release time ever pushed: no packet held now is due later.
  int64_t latest_release_ns() const { return latest_release_ns_; }
  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }
  const HeldPacket& next() const { return heap_.top(); }  // earliest release; not empty
  void pop() { heap_.pop(); }

 private:
  std::priority_queue<HeldPacket, std::vector<HeldPacket>, std::greater<HeldPacket>> heap_;
  uint64_t arrivals_ = 0;
  int64_t latest_release_ns_ = 0;
};

}  // namespace fabriclab::netem::userspace
