#include "runner/cleanup/interface_cleanup.h"

#include <exception>
#include <string>

#include "common/rtnl_socket.h"
#include "runner/rdma/rdma_links.h"
#include "runner/rdma/rxe_device.h"

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
  // The SoftRoCE device a host-mode run made on it (fabriclab's name only).
  // rxe lives in the initial namespace alone (doc/roce.md): none elsewhere.
  if (netns.empty()) {
    const std::string name = rdma::rxe_device_name(device);
    try {
      // None there (the usual case): no sentence, as before rxe existed.
      if (rdma::rdma_device_on(device) == name) {
        const std::string said = rdma::remove_rxe_device(name, device, dry_run);
        result.actions.push_back(said);
        result.removed.push_back(said);
      }
    } catch (const std::exception& e) {
      result.actions.push_back(e.what());
      result.ok = false;
    }
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
