#include "netem/backend_probe.h"

#include <stdexcept>

#include "netem/netlink/netlink_probe.h"
#include "netem/userspace/nft_switch_rules.h"
#include "netem/userspace/userspace_probe.h"

namespace fabriclab::netem {

BackendProbe probe_backend(BackendKind kind) {
  BackendProbe probe;
  probe.kind = kind;
  switch (kind) {
    case BackendKind::kNetem:
      probe.name = "netem";
      probe.availability = netlink::probe_backend(&probe.why);
      return probe;
    case BackendKind::kUserspace:
      probe.name = "userspace";
      probe.availability = userspace::probe_backend(&probe.why);
      return probe;
    case BackendKind::kAuto:
      break;
  }
  throw std::logic_error("probe_backend: auto is not a backend; probe netem and userspace");
}

std::vector<BackendProbe> probe_backends() {
  return {probe_backend(BackendKind::kNetem), probe_backend(BackendKind::kUserspace)};
}

Availability probe_switch_queue(std::string* why) {
  return userspace::switch_queue_usable(why) ? Availability::kYes : Availability::kNo;
}

}  // namespace fabriclab::netem
