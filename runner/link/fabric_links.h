// The fabric's own links, shaped both ways for the whole lab -- what the
// fabric is, not what a scenario does to it: the shared step of the
// fabric-scope settings host_links (host_links_setting.h) and uplinks
// (uplinks_setting.h). Placement decides whether a job crosses them at all.
//
// Each direction is impaired where the backend holds packets of a link
// (netem::Backend::link_direction): on the sending end's device, or on the
// receiving end's. Ownership: the returned handles remove it; each keeps
// `owner` (a backend made for this setting alone) alive until it is gone.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "netem/impairment.h"
#include "runner/link/link_setting.h"
#include "runner/topology/topology.h"

namespace fabriclab::runner {

// Applies `value` (tc-netem words, parsed as a netem::Spec: impair_setting.h)
// on both directions of each of `links` through `backend`, and describes it
// for the log and run.json under `key`. On throw nothing of it is left.
AppliedToFabric shape_fabric_links(const char* key, const SettingValue& value,
                                   const std::vector<Link>& links, netem::Backend& backend,
                                   std::shared_ptr<netem::Backend> owner = nullptr);

}  // namespace fabriclab::runner
