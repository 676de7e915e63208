#include "runner/cleanup/interface_cleanup.h"

#include <exception>

#include "common/rtnl_socket.h"

namespace fabriclab::runner {

InterfaceCleanup clean_interface(const std::string& netns, const std::string& device,
                                 bool dry_run) {
  netem::Target target;
  target.netns = netns;
  target.device = device;
  InterfaceCleanup result;
  // Each backend knows its own reserved names; none of them knows the other's.
  for (netem::BackendKind kind : {netem::BackendKind::kNetem, netem::BackendKind::kUserspace}) {
    const netem::Leftovers found = netem::make_backend(kind)->remove_leftovers(target, dry_run);
    result.actions.insert(result.actions.end(), found.actions.begin(), found.actions.end());
    result.removed.insert(result.removed.end(), found.removed.begin(), found.removed.end());
    result.ok = result.ok && found.ok;
  }
  return result;
}

bool interface_exists(const std::string& netns, const std::string& device) {
  try {
    return RtnlSocket(netns).ifindex(device) > 0;
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace fabriclab::runner
