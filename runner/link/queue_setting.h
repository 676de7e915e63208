// `queue`: the switch's egress port toward each linked rank becomes a queue
// of the lab's choosing -- a drain rate, a buffer and what it does when the
// buffer fills (tail drop, ECN marking, lossless pause), in the words of
// netem/queue/port_spec.h:
//
//   queue = "rate 500mbit limit 256kb ecn kmin 30kb kmax 120kb pmax 0.2"
//   links = ["r0"]        # the port in front of r0: what r0 RECEIVES
//
// Unlike `impair` (a link rN is the traffic rank N sends), a queue on link rN
// is the port toward rank N, where the traffic of every sender to N meets:
// that is where a real switch's buffer fills (incast). It needs the lab's
// switch (topology kind "switch"), on which one userspace switch worker
// (netem/userspace/switch_worker.h) holds the queued ports' packets; its
// drops count with the scenario's `drops`. Refused, with a clear message,
// without a switch (a pair, one rank, host mode).
#pragma once

#include "runner/link/link_setting.h"

namespace fabriclab::runner {

const LinkSettingKind& queue_setting();

}  // namespace fabriclab::runner
