// The fabric's own links as a lab draws them, in force for the whole lab --
// what the fabric is, not what a scenario does to it (labs/SCHEMA.md,
// "Topology"):
//   [topology] host_links  every host's link to its switch, both ways: the
//                          hosts' NIC speed, a rate alone ("rate 1gbit"),
//                          shaped by the kernel's tbf (netem backend);
//   [topology] uplinks     every link between two routers (leaf_spine's
//                          ToR-spine uplinks), both ways: per-hop latency and
//                          an uplink slower than the hosts' links
//                          (oversubscription), through the run's backend.
// Placement decides whether a job crosses them at all.
//
// Each direction is impaired where the backend holds packets of a link
// (netem::Backend::link_direction): on the sending end's device, or on the
// receiving end's. Ownership: the returned handles remove it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "netem/impairment.h"
#include "runner/topology/topology.h"

namespace fabriclab::runner {

// Applies `words` on both directions of each of `links` through `backend`;
// nothing for "". On throw nothing of it is left.
std::vector<std::unique_ptr<netem::Applied>> apply_on_links(const std::string& words,
                                                            const std::vector<Link>& links,
                                                            netem::Backend& backend);

}  // namespace fabriclab::runner
