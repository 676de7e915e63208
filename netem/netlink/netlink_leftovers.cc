#include "netem/netlink/netlink_leftovers.h"

#include <linux/pkt_sched.h>

#include <exception>

#include "netem/netlink/netlink_backend.h"
#include "netem/netlink/peer_filter.h"

namespace fabriclab::netem::netlink {

Leftovers remove_leftovers(const Target& target, bool dry_run) {
  Leftovers result;
  try {
    for (const QdiscInfo& qdisc : show_qdiscs(target)) {
      if (qdisc.parent != TC_H_ROOT) continue;
      if (qdisc.handle != kRootHandle) {
        result.actions.push_back("root qdisc " + qdisc.kind + " on " + target.device +
                                 " is not fabriclab's: left alone");
        return result;
      }
      result.actions.push_back(dry_run ? "root qdisc " + qdisc.kind + " fab0: on " + target.device +
                                             ": would remove"
                                       : clear_impairment(target, false));
      result.removed.push_back(result.actions.back());
      return result;
    }
    result.actions.push_back("no fabriclab qdisc on " + target.device);
  } catch (const std::exception& e) {
    result.ok = false;
    result.actions.push_back(e.what());
  }
  return result;
}

}  // namespace fabriclab::netem::netlink
