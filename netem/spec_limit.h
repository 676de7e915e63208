// The netem queue limit fabriclab sets when the spec gives none: a property
// of the spec, so both backends size their queue from it (the kernel's netem
// through netlink, the userspace queue worker).
//
// netem holds every delayed packet in its queue, and its default limit (1000
// packets, what tc sends) silently drops the rest: at 10 Gbit/s and 100 ms of
// delay about 83,000 full-size packets are in flight, so the default would
// add loss the student never asked for. So, when `limit` is not given:
//
//   limit = clamp(ceil(2 x R x (delay + jitter + slot max delay) / 1500 B),
//                 1000, 1048576) packets
//
// where R is the spec's `rate` if given, else 10 Gbit/s (faster than the lab's
// veth links carry between two namespaces on one machine). 1500 B is a
// full-size Ethernet frame; the factor 2 covers smaller packets (ACKs) and
// bursts. Thread-safe (pure).
#pragma once

#include <cstdint>

#include "netem/spec.h"

namespace fabriclab::netem {

constexpr uint64_t kAssumedLinkBytesPerS = 1250000000ULL;  // 10 Gbit/s
constexpr uint32_t kMinLimitPackets = 1000;                // tc's default
constexpr uint32_t kMaxLimitPackets = 1u << 20;

uint32_t derive_limit_packets(const Spec& spec);

// `spec` with limit_packets set: the spec's own, else derive_limit_packets().
Spec with_limit(const Spec& spec);

}  // namespace fabriclab::netem
