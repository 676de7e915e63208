#include "runner/topology/device_state.h"

#include <arpa/inet.h>
#include <libmnl/libmnl.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include <cstring>

#include "common/netlink_attributes.h"
#include "common/rtnl_socket.h"

namespace fabriclab::runner {
namespace {

// RTAX_* names as `ip route` prints them.
std::string metric_name(unsigned type) {
  switch (type) {
    case RTAX_MTU: return "mtu";
    case RTAX_WINDOW: return "window";
    case RTAX_RTT: return "rtt";
    case RTAX_RTTVAR: return "rttvar";
    case RTAX_SSTHRESH: return "ssthresh";
    case RTAX_CWND: return "cwnd";
    case RTAX_ADVMSS: return "advmss";
    case RTAX_REORDERING: return "reordering";
    case RTAX_INITCWND: return "initcwnd";
    case RTAX_INITRWND: return "initrwnd";
    case RTAX_QUICKACK: return "quickack";
    case RTAX_RTO_MIN: return "rto_min";
    case RTAX_FEATURES: return "features";
    case RTAX_CC_ALGO: return "congctl";
    default: return "metric" + std::to_string(type);
  }
}

// A dump request of `type` whose fixed header (a Header) the caller fills.
template <typename Header>
Header* put_dump_request(std::vector<uint8_t>& buffer, uint16_t type, RtnlSocket& socket) {
  buffer.assign(MNL_SOCKET_BUFFER_SIZE, 0);
  nlmsghdr* request = mnl_nlmsg_put_header(buffer.data());
  request->nlmsg_type = type;
  request->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
  request->nlmsg_seq = socket.next_seq();
  return static_cast<Header*>(mnl_nlmsg_put_extra_header(request, sizeof(Header)));
}

std::string root_qdisc(RtnlSocket& socket, int ifindex) {
  std::vector<uint8_t> buffer;
  auto* tc = put_dump_request<tcmsg>(buffer, RTM_GETQDISC, socket);
  const auto* request = reinterpret_cast<const nlmsghdr*>(buffer.data());
  tc->tcm_family = AF_UNSPEC;
  tc->tcm_ifindex = ifindex;
  std::string kind;
  socket.dump(
      request,
      [&](const nlmsghdr* answer) {
        const auto* found = static_cast<const tcmsg*>(mnl_nlmsg_get_payload(answer));
        if (found->tcm_ifindex != ifindex || found->tcm_parent != TC_H_ROOT) return;
        for_each_message_attr(answer, sizeof(tcmsg), [&](const nlattr* attr) {
          if (mnl_attr_get_type(attr) == TCA_KIND) kind = mnl_attr_get_str(attr);
        });
      },
      "dump qdiscs");
  return kind;
}

void read_metrics(const nlattr* metrics, RouteState& route) {
  for_each_nested(metrics, [&](const nlattr* attr) {
    if (mnl_attr_get_type(attr) == RTAX_CC_ALGO) return;  // a string, not a number
    if (mnl_attr_get_payload_len(attr) < sizeof(uint32_t)) return;
    route.metrics[metric_name(mnl_attr_get_type(attr))] = mnl_attr_get_u32(attr);
  });
}

std::vector<RouteState> routes_out_of(RtnlSocket& socket, int ifindex) {
  std::vector<uint8_t> buffer;
  auto* rt = put_dump_request<rtmsg>(buffer, RTM_GETROUTE, socket);
  const auto* request = reinterpret_cast<const nlmsghdr*>(buffer.data());
  rt->rtm_family = AF_INET;
  std::vector<RouteState> routes;
  socket.dump(
      request,
      [&](const nlmsghdr* answer) {
        const auto* found = static_cast<const rtmsg*>(mnl_nlmsg_get_payload(answer));
        if (found->rtm_table != RT_TABLE_MAIN) return;
        RouteState route;
        in_addr destination{};
        bool through_device = false;
        for_each_message_attr(answer, sizeof(rtmsg), [&](const nlattr* attr) {
          switch (mnl_attr_get_type(attr)) {
            case RTA_DST: std::memcpy(&destination, mnl_attr_get_payload(attr), 4); break;
            case RTA_OIF: through_device = static_cast<int>(mnl_attr_get_u32(attr)) == ifindex; break;
            case RTA_METRICS: read_metrics(attr, route); break;
            default: break;
          }
        });
        if (!through_device) return;
        char text[INET_ADDRSTRLEN] = "0.0.0.0";
        inet_ntop(AF_INET, &destination, text, sizeof(text));
        route.destination = std::string(text) + "/" + std::to_string(found->rtm_dst_len);
        if (found->rtm_dst_len == 0) route.destination = "default";
        routes.push_back(std::move(route));
      },
      "dump routes");
  return routes;
}

}  // namespace

DeviceState read_device_state(int netns_fd, const std::string& label, const std::string& device) {
  RtnlSocket socket(netns_fd, label);
  const int ifindex = socket.ifindex(device);
  return {root_qdisc(socket, ifindex), routes_out_of(socket, ifindex)};
}

}  // namespace fabriclab::runner
