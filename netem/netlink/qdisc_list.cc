#include "netem/netlink/qdisc_list.h"

#include <libmnl/libmnl.h>
#include <linux/gen_stats.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include <algorithm>
#include <cstring>

#include "common/netlink_attributes.h"
#include "netem/netlink/qdisc_message.h"

namespace fabriclab::netem::netlink {

namespace {

void read_stats2(const nlattr* stats2, QdiscStats* out) {
  for_each_nested(stats2, [&](const nlattr* a) {
    switch (mnl_attr_get_type(a)) {
      case TCA_STATS_BASIC: {
        gnet_stats_basic b{};
        std::memcpy(&b, mnl_attr_get_payload(a),
                    std::min<size_t>(sizeof b, mnl_attr_get_payload_len(a)));
        out->bytes = b.bytes;
        if (out->packets == 0) out->packets = b.packets;
        break;
      }
      case TCA_STATS_PKT64:
        if (mnl_attr_get_payload_len(a) >= sizeof(uint64_t)) out->packets = mnl_attr_get_u64(a);
        break;
      case TCA_STATS_QUEUE: {
        gnet_stats_queue q{};
        std::memcpy(&q, mnl_attr_get_payload(a),
                    std::min<size_t>(sizeof q, mnl_attr_get_payload_len(a)));
        out->qlen = q.qlen;
        out->backlog_bytes = q.backlog;
        out->drops = q.drops;
        out->requeues = q.requeues;
        out->overlimits = q.overlimits;
        break;
      }
      default:
        break;
    }
  });
}

}  // namespace

std::optional<QdiscInfo> parse_qdisc(const nlmsghdr* nlh) {
  if (nlh->nlmsg_type != RTM_NEWQDISC || mnl_nlmsg_get_payload_len(nlh) < sizeof(tcmsg))
    return std::nullopt;
  const auto* tcm = static_cast<const tcmsg*>(mnl_nlmsg_get_payload(nlh));
  QdiscInfo q;
  q.ifindex = tcm->tcm_ifindex;
  q.handle = tcm->tcm_handle;
  q.parent = tcm->tcm_parent;
  for_each_message_attr(nlh, sizeof(tcmsg), [&](const nlattr* a) {
    switch (mnl_attr_get_type(a)) {
      case TCA_KIND:
        q.kind = attr_string(a);
        break;
      case TCA_OPTIONS: {
        const auto* p = static_cast<const uint8_t*>(mnl_attr_get_payload(a));
        q.options.assign(p, p + mnl_attr_get_payload_len(a));
        break;
      }
      case TCA_STATS2:
        read_stats2(a, &q.stats);
        break;
      default:
        break;
    }
  });
  if (q.kind == "netem") q.netem = decode_netem_options(q.options.data(), q.options.size());
  return q;
}

std::vector<QdiscInfo> list_qdiscs(RtnlSocket& socket, int ifindex) {
  std::vector<QdiscInfo> out;
  socket.dump(
      build_get_qdiscs(ifindex, socket.next_seq()),
      [&](const nlmsghdr* nlh) {
        std::optional<QdiscInfo> q = parse_qdisc(nlh);
        if (!q || (ifindex != 0 && q->ifindex != ifindex)) return;
        out.push_back(std::move(*q));
      },
      "list qdiscs");
  return out;
}

std::optional<QdiscInfo> root_qdisc(RtnlSocket& socket, int ifindex) {
  for (QdiscInfo& q : list_qdiscs(socket, ifindex))
    if (q.parent == TC_H_ROOT) return q;
  return std::nullopt;
}

}  // namespace fabriclab::netem::netlink
