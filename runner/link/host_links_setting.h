// `host_links`, a [topology] key: every host's link to its switch (or its
// peer), both directions, for the whole lab -- the hosts' NIC speed:
//
//   host_links = "rate 1gbit"
//
// A rate alone, shaped by the kernel's tbf (the netem backend, made for it
// alone: it needs no sch_netem and costs no CPU of ours), whatever backend
// the run's scenarios use. A lab with it impairs no link in a scenario
// (`impair`): the two would meet on one device. Host mode refuses it: it
// leaves the machines' NICs as they are.
#pragma once

#include "runner/link/link_setting.h"

namespace fabriclab::runner {

const LinkSettingKind& host_links_setting();

}  // namespace fabriclab::runner
