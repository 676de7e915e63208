// One switch's egress ports and the upstream links that feed them, as a
// discrete-event model: packets arrive (from an ingress link, for a port),
// wait in the port's FIFO, which drains at the port's rate, and leave -- or
// are dropped, or leave with CE set -- as the port's policy says
// (port_spec.h). The userspace switch (the queue worker) asks it, packet by
// packet, and releases each packet when the model says it has left.
//
// Timing. A port drains as a wire of `rate`: a packet that arrives at t
// starts when the port is free (max(t, end of the previous packet)) and has
// left bytes / rate later. The port's depth is the bytes it holds that have
// not left, the one being sent included; marking and dropping look at the
// depth an arriving packet finds (RED's instantaneous queue).
//
// Lossless (PFC). When a port's depth passes xoff it pauses every ingress
// link that has bytes in it; a paused ingress holds everything that arrives
// on it, whatever port it is for (head-of-line blocking: a flow to another,
// idle port waits too), in arrival order. When the port has drained below
// xon it resumes them (an ingress paused by several ports resumes when the
// last one does) and their held packets enter their ports in arrival order,
// the links resumed together taking turns a packet at a time (as links
// resumed by one XON all send at once) -- which may pause them again. Nothing is ever dropped; a port may then hold more
// than its limit, as a real switch's headroom does.
//
// Deterministic: the same arrivals and seed give the same verdicts.
// Times are ns on any monotonic clock; arrive() and take() must be called
// with times that never go back. Not thread-safe (the queue worker owns it).
#pragma once

#include <cstdint>
#include <deque>
#include <limits>
#include <random>
#include <vector>

#include "netem/queue/port_spec.h"

namespace fabriclab::netem {

struct SwitchPacket {
  uint64_t token = 0;  // the caller's (an NFQUEUE packet id)
  int ingress = 0;     // 0 .. ingresses-1
  int port = 0;        // 0 .. ports-1
  uint32_t bytes = 0;  // on the wire: the IP length (+ Ethernet's 14, the caller's choice)
  bool ect = false;    // ECN-capable transport (ECT(0) or ECT(1)), may be marked
};

struct SwitchVerdict {
  enum Kind { kAccept, kAcceptCe, kDrop };
  uint64_t token = 0;
  Kind kind = kAccept;
};

struct PortCounters {
  uint64_t packets = 0;  // entered the queue
  uint64_t bytes = 0;
  uint64_t dropped = 0;  // full buffer, or marked but not ECN-capable
  uint64_t unmarkable = 0;  // of those, the ones not ECN-capable (ecn)
  uint64_t marked = 0;   // CE set
  uint64_t pauses = 0;   // times it passed xoff and paused its upstreams
  int64_t paused_ns = 0;  // time it held upstreams paused (up to now)
  uint64_t depth_bytes = 0;      // now
  uint64_t depth_max_bytes = 0;  // ever
  // The depth arriving packets found (1 KiB resolution, the bucket's top).
  uint64_t depth_p50_bytes = 0;
  uint64_t depth_p99_bytes = 0;
};

struct MarkingBucket {
  uint64_t depth_from_bytes = 0;  // the bucket covers [from, from + 1 KiB)
  uint64_t ect = 0;               // ECN-capable arrivals that found that depth
  uint64_t marked = 0;            // of those, marked CE
};

struct IngressCounters {
  uint64_t held_packets = 0;  // packets that arrived while it was paused
  uint64_t pauses = 0;        // times it went from running to paused
  int64_t paused_ns = 0;      // up to now
  uint64_t holding = 0;       // packets held now
};

class SwitchModel {
 public:
  SwitchModel(std::vector<PortSpec> ports, int ingresses, uint64_t seed);

  // A packet arrives at `now_ns`. Its verdict comes from take(): at once for
  // a drop, when it has left the port for an accept.
  void arrive(int64_t now_ns, const SwitchPacket& packet);
  // The verdicts due by `now_ns`, in the order the packets left (drops first
  // when they were decided).
  std::vector<SwitchVerdict> take(int64_t now_ns);
  // When the next queued packet leaves (int64 max: none queued).
  int64_t next_departure_ns() const;

  PortCounters port_counters(int port, int64_t now_ns) const;
  IngressCounters ingress_counters(int ingress, int64_t now_ns) const;
  // The largest depth of `port` since the previous call (for a time series).
  uint64_t take_window_max(int port);
  // An ecn port's decisions by the depth the packet found: per KiB of depth,
  // the ECN-capable packets that got a marking draw and how many it marked
  // (the packet-level trace the marking profile is checked against).
  std::vector<MarkingBucket> marking_trace(int port) const;
  int ports() const { return static_cast<int>(ports_.size()); }

 private:
  struct Queued {
    uint64_t token;
    int ingress;
    uint32_t bytes;
    bool ce;
    int64_t leaves_ns;
  };
  struct Port {
    PortSpec spec;
    std::deque<Queued> fifo;
    int64_t free_at_ns = 0;        // when the last queued packet has left
    uint64_t depth_bytes = 0;
    std::vector<uint64_t> bytes_from;  // per ingress, in the queue now
    bool pausing = false;
    int64_t pausing_since_ns = 0;
    std::vector<int> paused;       // the ingresses it paused
    std::vector<uint64_t> depth_histogram;  // arrivals per KiB of depth found
    std::vector<uint64_t> ect_by_depth;     // ecn: ECN-capable arrivals per KiB found
    std::vector<uint64_t> marked_by_depth;  // ecn: of those, marked
    uint64_t window_max = 0;
    PortCounters counters;
  };
  struct Ingress {
    int paused_by = 0;  // ports holding it paused
    int64_t paused_since_ns = 0;
    std::deque<SwitchPacket> held;
    IngressCounters counters;
  };

  void advance(int64_t now_ns);  // every packet that has left by now leaves, in order
  void enqueue(int64_t now_ns, const SwitchPacket& packet);
  bool marks(const Port& port);  // draws: RED/DCQCN on the depth found
  void pause(int ingress, int64_t now_ns);
  bool resume(int ingress, int64_t now_ns);  // true: no port holds it paused any more
  void release_held(std::vector<int> ingresses, int64_t now_ns);
  void leave(Port& port, int64_t now_ns);  // its head has left

  std::vector<Port> ports_;
  std::vector<Ingress> ingresses_;
  std::vector<SwitchVerdict> ready_;
  std::mt19937_64 random_;
};

}  // namespace fabriclab::netem
