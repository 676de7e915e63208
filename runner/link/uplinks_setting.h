// `uplinks`, a [topology] key: every link between two routers (leaf_spine's
// ToR-spine uplinks), both directions, for the whole lab -- the fabric's own
// per-hop latency and an uplink slower than what the hosts below it can send
// (oversubscription):
//
//   uplinks = "delay 500us rate 100mbit"
//
// Any tc-netem words, through the run's impairment backend; only for a
// fabric kind with router links. Host mode refuses it: the machines' own
// network has no routers of fabriclab's to shape.
#pragma once

#include "runner/link/link_setting.h"

namespace fabriclab::runner {

const LinkSettingKind& uplinks_setting();

}  // namespace fabriclab::runner
