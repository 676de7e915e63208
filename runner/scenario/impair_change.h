// A link fault that changes the links' impairment for a while
// (`link_fault = "impair 'loss 5%' for 3s at step 6"`, link_fault.h): through
// the scenario's own impairment backend (netem over netlink, or the
// userspace backend), on the same targets the scenario's `impair` uses
// (LabNetwork::impairment_targets).
//
// On a target where the scenario's own impairment is in force, begin()
// changes that impairment in place (netem::Applied::change: the kernel's
// `tc qdisc change`, or the userspace worker's model swapped; held packets
// keep their release times) and end() changes it back to the scenario's
// words. On a target without one, begin() applies the fault's impairment
// and end() removes it.
//
// Errors: begin() and end() throw std::runtime_error (or InputError, for
// words the backend cannot express); begin() leaves nothing of itself in
// force when it throws. Ownership: the scenario's handles are borrowed and
// must outlive this object (the scenario runner ends its link fault before
// removing its settings). Thread safety: one owner, one thread.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "netem/impairment.h"
#include "runner/scenario/link_fault.h"

namespace fabriclab::runner {

// One target of the fault's links.
struct ImpairPlace {
  netem::Target target;
  // The scenario's own impairment there (its handle and words), changed in
  // place and back; null when the scenario puts none there.
  netem::Applied* own = nullptr;
  std::string own_words;
};

// `links`: the links' names for the events ("r1"); `backend` applies the
// fault's impairment where the scenario has none (null only when every
// place has its own).
std::unique_ptr<FaultAction> change_impairment(std::string words, std::vector<ImpairPlace> places,
                                               std::vector<std::string> links,
                                               netem::Backend* backend);

}  // namespace fabriclab::runner
