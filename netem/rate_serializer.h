// netem's `rate`, as sch_netem computes it (netem_enqueue() and
// packet_time_ns() in net/sched/sch_netem.c), for the userspace backend:
// a packet is sent only after the one queued before it has gone, and takes
// its length / rate on the wire:
//
//   len'  = len + packet_overhead, rounded up to whole cells of
//           (cell_size + cell_overhead) when cell_size is given;
//   t_tx  = len' x 10^9 / rate ns;
//   leave = (queue empty ? arrival + delay : max(arrival + delay, last leave)) + t_tx.
//
// Lengths are what a qdisc on an Ethernet device counts (skb->len, the
// Ethernet header included): the caller passes that.
// Deterministic; not thread-safe (one queue worker owns it).
#pragma once

#include <cstdint>

#include "netem/spec.h"

namespace fabriclab::netem {

class RateSerializer {
 public:
  explicit RateSerializer(const Spec& spec);

  // True when the spec has a rate (otherwise departure_ns() adds nothing).
  bool active() const { return rate_bytes_per_s_ > 0; }

  // When a packet of `length_bytes` arriving at `arrival_ns`, held `delay_ns`
  // by the delay model, leaves; `queue_empty`: nothing else is held now.
  int64_t departure_ns(int64_t arrival_ns, int64_t delay_ns, uint32_t length_bytes,
                       bool queue_empty);

  // netem's packet_time_ns(): the wire time of one packet of this length.
  int64_t transmit_ns(uint32_t length_bytes) const;

 private:
  uint64_t rate_bytes_per_s_;
  int32_t packet_overhead_;
  uint32_t cell_size_;
  int32_t cell_overhead_;
  int64_t last_departure_ns_ = 0;
};

}  // namespace fabriclab::netem
