// The kernel's packet-scheduler clock, as tc sees it (/proc/net/psched).
//
// netem's tc_netem_qopt carries latency and jitter in scheduler "ticks", not
// microseconds; tc converts with tick_in_usec from /proc/net/psched (15.625 on
// every current kernel: 1000/64 x clock_res/1e6). We read the same file the
// same way (tc_core_init in iproute2's tc/tc_core.c) so our bytes match tc's.
//
// Thread safety: the file is read once, on first use (a function-local static).
#pragma once

#include <cstdint>

namespace fabriclab::netem {

// Ticks per microsecond (tc's tick_in_usec); 1.0 if /proc/net/psched is
// unreadable (tc's own fallback).
double tick_in_usec();

// tc_core_time2tick(): microseconds -> ticks, truncated like tc.
uint32_t usec_to_ticks(uint32_t usec);

// tc_core_time2big(): true when `usec` does not fit in 32-bit ticks
// (about 274 s on current kernels); tc rejects such times.
bool usec_too_big_for_ticks(uint64_t usec);

}  // namespace fabriclab::netem
