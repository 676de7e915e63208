// Read-back: the qdiscs of a device, with options and statistics, from an
// RTM_GETQDISC dump (what `tc -s qdisc show dev DEV` prints).
//
// Statistics come from TCA_STATS2 (basic: bytes, packets; queue: qlen,
// backlog, drops, requeues, overlimits), cumulative since the qdisc was
// created. Errors: KernelError from the socket. Thread safety: as RtnlSocket.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/rtnl_socket.h"
#include "netem/netlink/netem_options.h"

namespace fabriclab::netem::netlink {

struct QdiscStats {
  uint64_t bytes = 0;
  uint64_t packets = 0;
  uint32_t drops = 0;
  uint32_t overlimits = 0;
  uint32_t requeues = 0;
  uint32_t backlog_bytes = 0;
  uint32_t qlen = 0;  // packets queued now
};

struct QdiscInfo {
  int ifindex = 0;
  uint32_t handle = 0;
  uint32_t parent = 0;
  std::string kind;
  std::vector<uint8_t> options;       // raw TCA_OPTIONS payload
  std::optional<DecodedNetem> netem;  // set for kind "netem"
  QdiscStats stats;
};

// One message of the dump (RTM_NEWQDISC: tcmsg, TCA_KIND, TCA_OPTIONS,
// TCA_STATS2); nullopt for any other message type. Reads only inside the
// message (tests/fuzz/fuzz_qdisc_dump.cc feeds it arbitrary bytes).
std::optional<QdiscInfo> parse_qdisc(const nlmsghdr* nlh);

// The qdiscs on `ifindex` (all devices if 0), in the kernel's order.
std::vector<QdiscInfo> list_qdiscs(RtnlSocket& socket, int ifindex);

// The root qdisc of `ifindex`, if any.
std::optional<QdiscInfo> root_qdisc(RtnlSocket& socket, int ifindex);

}  // namespace fabriclab::netem::netlink
