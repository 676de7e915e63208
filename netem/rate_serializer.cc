#include "netem/rate_serializer.h"

#include <algorithm>

namespace fabriclab::netem {

RateSerializer::RateSerializer(const Spec& spec)
    : rate_bytes_per_s_(spec.rate_bytes_per_s),
      packet_overhead_(spec.rate_packet_overhead),
      cell_size_(spec.rate_cell_size),
      cell_overhead_(spec.rate_cell_overhead) {}

int64_t RateSerializer::transmit_ns(uint32_t length_bytes) const {
  if (rate_bytes_per_s_ == 0) return 0;
  int64_t len = static_cast<int64_t>(length_bytes) + packet_overhead_;
  if (cell_size_ > 0) {
    int64_t cells = len / cell_size_;
    if (len > cells * static_cast<int64_t>(cell_size_)) ++cells;
    len = cells * (static_cast<int64_t>(cell_size_) + cell_overhead_);
  }
  len = std::max<int64_t>(len, 0);
  // The kernel's div64_u64(len * NSEC_PER_SEC, rate): truncated.
  return static_cast<int64_t>(static_cast<uint64_t>(len) * 1000000000ULL / rate_bytes_per_s_);
}

int64_t RateSerializer::departure_ns(int64_t arrival_ns, int64_t delay_ns, uint32_t length_bytes,
                                     bool queue_empty) {
  int64_t leave = arrival_ns + delay_ns;
  if (!active()) return leave;
  // netem: the last queued packet is the reference point; the delay already
  // spent waiting behind it is a bonus taken off this packet's delay.
  if (!queue_empty) leave = std::max(leave, last_departure_ns_);
  leave += transmit_ns(length_bytes);
  last_departure_ns_ = leave;
  return leave;
}

}  // namespace fabriclab::netem
