#include "netem/spec_limit.h"

#include <algorithm>
#include <cmath>

namespace fabriclab::netem {

uint32_t derive_limit_packets(const Spec& spec) {
  double rate =
      static_cast<double>(spec.rate_bytes_per_s ? spec.rate_bytes_per_s : kAssumedLinkBytesPerS);
  double hold_s = static_cast<double>(spec.delay_us + spec.jitter_us) / 1e6;
  if (spec.slot.given)
    hold_s += static_cast<double>(std::max(spec.slot.max_delay_ns,
                                           spec.slot.dist_delay_ns + spec.slot.dist_jitter_ns)) /
              1e9;
  double packets = std::ceil(2.0 * rate * hold_s / 1500.0);
  packets = std::clamp(packets, static_cast<double>(kMinLimitPackets),
                       static_cast<double>(kMaxLimitPackets));
  return static_cast<uint32_t>(packets);
}

Spec with_limit(const Spec& spec) {
  Spec s = spec;
  if (s.limit_packets == 0) s.limit_packets = derive_limit_packets(spec);
  return s;
}

}  // namespace fabriclab::netem
