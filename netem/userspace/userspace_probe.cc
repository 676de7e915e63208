#include "netem/userspace/userspace_probe.h"

#include <sched.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "netem/userspace/nfqueue_socket.h"
#include "netem/userspace/nft_queue_rules.h"

namespace fabriclab::netem::userspace {

Availability probe_backend(std::string* why) {
  bool ok = false;
  std::string reason;
  // A thread of its own in a fresh network namespace: the probes bind a
  // queue and validate a rule there, and the namespace vanishes with it.
  std::thread probe([&] {
    if (unshare(CLONE_NEWNET) != 0) {
      reason = std::string("cannot create a network namespace to check NFQUEUE (") +
               std::strerror(errno) +
               "): the userspace backend needs CAP_NET_ADMIN (run as root, or rootless inside "
               "a user namespace: unshare -U -r -n)";
      return;
    }
    try {
      NfqueueSocket socket(NfqueueSocket::Options{});
    } catch (const std::exception& e) {
      reason = std::string("nfnetlink_queue is not usable: ") + e.what() +
               " (needs CONFIG_NETFILTER_NETLINK_QUEUE)";
      return;
    }
    if (!nft_queue_target_usable(&reason)) return;
    ok = true;
    reason = "nfnetlink_queue and the nftables NFQUEUE target work";
  });
  probe.join();
  if (why) *why = reason;
  return ok ? Availability::kYes : Availability::kNo;
}

}  // namespace fabriclab::netem::userspace
