// Reading a netem TCA_OPTIONS payload back into a Spec: for `netem show`
// (what the kernel reports) and for the --dry-run decoder (what we send).
//
// Probabilities come back at the kernel's resolution (u32 / UINT32_MAX);
// times from ticks via /proc/net/psched, or from TCA_NETEM_LATENCY64 /
// JITTER64 (nanoseconds) when the kernel includes them. Distribution tables
// cannot be named from their bytes: a table present is reported by size.
// Thread-safe (pure).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "netem/spec.h"

namespace fabriclab::netem::netlink {

struct DecodedNetem {
  Spec spec;  // limit_packets is the kernel's limit
  size_t delay_table_entries = 0;
  size_t slot_table_entries = 0;
  bool valid = false;  // false: payload shorter than tc_netem_qopt
};

DecodedNetem decode_netem_options(const void* payload, size_t length);

}  // namespace fabriclab::netem::netlink
