#include "netem/queue/switch_model.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace fabriclab::netem {
namespace {

constexpr uint64_t kDepthBucket = 1024;

int64_t wire_ns(uint32_t bytes, uint64_t rate_bytes_per_s) {
  return static_cast<int64_t>(static_cast<uint64_t>(bytes) * 1'000'000'000ULL / rate_bytes_per_s);
}

// The depth at or below which `share` of the arrivals found the port.
uint64_t depth_percentile(const std::vector<uint64_t>& histogram, double share, uint64_t max) {
  uint64_t total = 0;
  for (uint64_t n : histogram) total += n;
  if (total == 0) return 0;
  const auto rank = static_cast<uint64_t>(share * static_cast<double>(total) + 0.999999);
  uint64_t seen = 0;
  for (size_t b = 0; b < histogram.size(); ++b) {
    seen += histogram[b];
    if (seen >= rank) return std::min<uint64_t>((b + 1) * kDepthBucket, max);
  }
  return max;
}

}  // namespace

SwitchModel::SwitchModel(std::vector<PortSpec> ports, int ingresses, uint64_t seed)
    : ingresses_(static_cast<size_t>(std::max(ingresses, 0))), random_(seed) {
  if (ports.empty() || ingresses <= 0)
    throw std::invalid_argument("a switch needs at least one port and one ingress");
  for (PortSpec& spec : ports) {
    if (spec.rate_bytes_per_s == 0) throw std::invalid_argument("a port needs a rate");
    Port port;
    port.spec = spec;
    port.bytes_from.assign(ingresses_.size(), 0);
    port.depth_histogram.assign(spec.limit_bytes / kDepthBucket + 2, 0);
    if (port_marks(spec)) {
      port.ect_by_depth.assign(port.depth_histogram.size(), 0);
      port.marked_by_depth.assign(port.depth_histogram.size(), 0);
    }
    ports_.push_back(std::move(port));
  }
}

void SwitchModel::arrive(int64_t now_ns, const SwitchPacket& packet) {
  if (packet.port < 0 || packet.port >= ports() || packet.ingress < 0 ||
      packet.ingress >= static_cast<int>(ingresses_.size()))
    throw std::invalid_argument("a packet for a port or from an ingress the switch does not have");
  advance(now_ns);  // what has left by now has made room (and may have resumed an ingress)
  Ingress& in = ingresses_[static_cast<size_t>(packet.ingress)];
  if (in.paused_by > 0 || !in.held.empty()) {
    in.held.push_back(packet);
    ++in.counters.held_packets;
    return;
  }
  enqueue(now_ns, packet);
}

std::vector<SwitchVerdict> SwitchModel::take(int64_t now_ns) {
  advance(now_ns);
  return std::exchange(ready_, {});
}

void SwitchModel::advance(int64_t now_ns) {
  for (;;) {
    Port* next = nullptr;
    for (Port& port : ports_)
      if (!port.fifo.empty() && port.fifo.front().leaves_ns <= now_ns &&
          (!next || port.fifo.front().leaves_ns < next->fifo.front().leaves_ns))
        next = &port;
    if (!next) break;
    leave(*next, next->fifo.front().leaves_ns);
  }
}

int64_t SwitchModel::next_departure_ns() const {
  int64_t next = std::numeric_limits<int64_t>::max();
  for (const Port& port : ports_)
    if (!port.fifo.empty()) next = std::min(next, port.fifo.front().leaves_ns);
  return next;
}

bool SwitchModel::marks(const Port& port) {
  const PortSpec& s = port.spec;
  const uint64_t found = port.depth_bytes;
  if (found < s.kmin_bytes) return false;
  if (found >= s.kmax_bytes) return true;
  const double p = s.pmax * static_cast<double>(found - s.kmin_bytes) /
                   static_cast<double>(s.kmax_bytes - s.kmin_bytes);
  return static_cast<double>(random_() >> 11) * 0x1.0p-53 < p;
}

void SwitchModel::enqueue(int64_t now_ns, const SwitchPacket& packet) {
  Port& port = ports_[static_cast<size_t>(packet.port)];
  const PortSpec& s = port.spec;
  const uint64_t found = port.depth_bytes;
  ++port.depth_histogram[std::min<size_t>(found / kDepthBucket, port.depth_histogram.size() - 1)];

  bool ce = false;
  if (s.policy != QueuePolicy::kLossless && found + packet.bytes > s.limit_bytes) {
    ++port.counters.dropped;
    ready_.push_back({packet.token, SwitchVerdict::kDrop});
    return;
  }
  const size_t bucket = std::min<size_t>(found / kDepthBucket, port.depth_histogram.size() - 1);
  const bool marked = port_marks(s) && marks(port);
  if (port_marks(s) && packet.ect) {
    ++port.ect_by_depth[bucket];
    if (marked) ++port.marked_by_depth[bucket];
  }
  if (marked && (packet.ect || s.policy == QueuePolicy::kEcn)) {
    // A lossless port queues what it cannot mark (its senders are paused
    // instead); RED drops it.
    if (!packet.ect) {
      ++port.counters.dropped;
      ++port.counters.unmarkable;
      ready_.push_back({packet.token, SwitchVerdict::kDrop});
      return;
    }
    ce = true;
    ++port.counters.marked;
  }

  const int64_t leaves = std::max(now_ns, port.free_at_ns) + wire_ns(packet.bytes, s.rate_bytes_per_s);
  port.free_at_ns = leaves;
  port.fifo.push_back({packet.token, packet.ingress, packet.bytes, ce, leaves});
  port.depth_bytes += packet.bytes;
  port.bytes_from[static_cast<size_t>(packet.ingress)] += packet.bytes;
  ++port.counters.packets;
  port.counters.bytes += packet.bytes;
  port.counters.depth_max_bytes = std::max(port.counters.depth_max_bytes, port.depth_bytes);
  port.window_max = std::max(port.window_max, port.depth_bytes);

  if (s.policy == QueuePolicy::kLossless && port.depth_bytes > s.xoff_bytes) {
    if (!port.pausing) {
      port.pausing = true;
      port.pausing_since_ns = now_ns;
      ++port.counters.pauses;
      for (size_t j = 0; j < port.bytes_from.size(); ++j) {
        if (port.bytes_from[j] == 0) continue;
        port.paused.push_back(static_cast<int>(j));
        pause(static_cast<int>(j), now_ns);
      }
    } else if (std::find(port.paused.begin(), port.paused.end(), packet.ingress) ==
               port.paused.end()) {
      // A link that was not feeding it when it paused (or was resumed by
      // another port's XON) sends into it above XOFF: it is paused too.
      port.paused.push_back(packet.ingress);
      pause(packet.ingress, now_ns);
    }
  }
}

void SwitchModel::pause(int ingress, int64_t now_ns) {
  Ingress& in = ingresses_[static_cast<size_t>(ingress)];
  if (in.paused_by++ == 0) {
    in.paused_since_ns = now_ns;
    ++in.counters.pauses;
  }
}

bool SwitchModel::resume(int ingress, int64_t now_ns) {
  Ingress& in = ingresses_[static_cast<size_t>(ingress)];
  if (--in.paused_by > 0) return false;
  in.counters.paused_ns += now_ns - in.paused_since_ns;
  return true;
}

void SwitchModel::release_held(std::vector<int> ingresses, int64_t now_ns) {
  // The links resumed together send together: their held packets enter
  // their ports one link at a time, in turn (not one link's backlog first),
  // until each is empty or paused again.
  bool sent = true;
  while (sent) {
    sent = false;
    for (int ingress : ingresses) {
      Ingress& in = ingresses_[static_cast<size_t>(ingress)];
      if (in.paused_by > 0 || in.held.empty()) continue;
      const SwitchPacket packet = in.held.front();
      in.held.pop_front();
      enqueue(now_ns, packet);
      sent = true;
    }
  }
}

void SwitchModel::leave(Port& port, int64_t now_ns) {
  const Queued head = port.fifo.front();
  port.fifo.pop_front();
  port.depth_bytes -= head.bytes;
  port.bytes_from[static_cast<size_t>(head.ingress)] -= head.bytes;
  ready_.push_back({head.token, head.ce ? SwitchVerdict::kAcceptCe : SwitchVerdict::kAccept});
  if (port.pausing && port.depth_bytes < port.spec.xon_bytes) {
    port.pausing = false;
    port.counters.paused_ns += now_ns - port.pausing_since_ns;
    std::vector<int> running;
    for (int ingress : std::exchange(port.paused, {}))
      if (resume(ingress, now_ns)) running.push_back(ingress);
    release_held(std::move(running), now_ns);
  }
}

PortCounters SwitchModel::port_counters(int port, int64_t now_ns) const {
  const Port& p = ports_.at(static_cast<size_t>(port));
  PortCounters c = p.counters;
  if (p.pausing) c.paused_ns += now_ns - p.pausing_since_ns;
  c.depth_bytes = p.depth_bytes;
  c.depth_p50_bytes = depth_percentile(p.depth_histogram, 0.50, c.depth_max_bytes);
  c.depth_p99_bytes = depth_percentile(p.depth_histogram, 0.99, c.depth_max_bytes);
  return c;
}

IngressCounters SwitchModel::ingress_counters(int ingress, int64_t now_ns) const {
  const Ingress& in = ingresses_.at(static_cast<size_t>(ingress));
  IngressCounters c = in.counters;
  if (in.paused_by > 0) c.paused_ns += now_ns - in.paused_since_ns;
  c.holding = in.held.size();
  return c;
}

std::vector<MarkingBucket> SwitchModel::marking_trace(int port) const {
  const Port& p = ports_.at(static_cast<size_t>(port));
  std::vector<MarkingBucket> trace;
  for (size_t b = 0; b < p.ect_by_depth.size(); ++b)
    if (p.ect_by_depth[b] > 0) trace.push_back({b * kDepthBucket, p.ect_by_depth[b], p.marked_by_depth[b]});
  return trace;
}

uint64_t SwitchModel::take_window_max(int port) {
  Port& p = ports_.at(static_cast<size_t>(port));
  const uint64_t max = std::max(p.window_max, p.depth_bytes);
  p.window_max = p.depth_bytes;
  return max;
}

}  // namespace fabriclab::netem
