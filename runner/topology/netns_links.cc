#include "runner/topology/netns_links.h"

#include <arpa/inet.h>
#include <libmnl/libmnl.h>
#include <linux/if.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <linux/veth.h>
#include <netinet/in.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "common/input_error.h"

namespace fabriclab::runner {
namespace {

// One request at a time; a link message with a few names and nests fits
// easily.
constexpr size_t kRequestBytes = 4096;

nlmsghdr* start_request(std::vector<char>& buffer, uint16_t type, uint16_t flags) {
  buffer.assign(kRequestBytes, 0);
  nlmsghdr* request = mnl_nlmsg_put_header(buffer.data());
  request->nlmsg_type = type;
  request->nlmsg_flags = NLM_F_REQUEST | flags;
  return request;
}

ifinfomsg* put_ifinfo(nlmsghdr* request, int index) {
  auto* info = static_cast<ifinfomsg*>(mnl_nlmsg_put_extra_header(request, sizeof(ifinfomsg)));
  info->ifi_family = AF_UNSPEC;
  info->ifi_index = index;
  return info;
}

}  // namespace

NetnsLinks::NetnsLinks(int netns_fd, std::string netns_label)
    : netns_label_(std::move(netns_label)), socket_(netns_fd, netns_label_) {}

int NetnsLinks::transact(nlmsghdr* request) {
  request->nlmsg_flags |= NLM_F_ACK;
  request->nlmsg_seq = socket_.next_seq();
  try {
    socket_.request(request, "rtnetlink request");  // fail() words it
  } catch (const KernelError& e) {
    return e.error();
  }
  return 0;
}

void NetnsLinks::fail(const std::string& what, int err) const {
  std::string message =
      "netlink: " + what + " in network namespace '" + netns_label_ + "': " + std::strerror(err);
  if (err == EPERM) {
    message +=
        " (needs CAP_NET_ADMIN: run as root, or as a user where user namespaces are "
        "allowed -- see `fabriclab doctor`)";
  } else if (err == EEXIST) {
    message += " (a leftover of an earlier run? `fabriclab cleanup` removes those)";
  }
  throw std::runtime_error(message);
}

void NetnsLinks::create_veth(const std::string& name, const std::string& peer_name,
                             int peer_netns_fd) {
  std::vector<char> buffer;
  nlmsghdr* request = start_request(buffer, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL);
  put_ifinfo(request, 0);
  mnl_attr_put_strz(request, IFLA_IFNAME, name.c_str());
  nlattr* link_info = mnl_attr_nest_start(request, IFLA_LINKINFO);
  mnl_attr_put_strz(request, IFLA_INFO_KIND, "veth");
  nlattr* info_data = mnl_attr_nest_start(request, IFLA_INFO_DATA);
  nlattr* peer = mnl_attr_nest_start(request, VETH_INFO_PEER);
  // VETH_INFO_PEER carries a whole link request: an ifinfomsg header
  // followed by the peer's attributes (as iproute2 builds it).
  std::memset(mnl_nlmsg_get_payload_tail(request), 0, sizeof(ifinfomsg));
  request->nlmsg_len += MNL_ALIGN(sizeof(ifinfomsg));
  mnl_attr_put_strz(request, IFLA_IFNAME, peer_name.c_str());
  if (peer_netns_fd >= 0) mnl_attr_put_u32(request, IFLA_NET_NS_FD, peer_netns_fd);
  mnl_attr_nest_end(request, peer);
  mnl_attr_nest_end(request, info_data);
  mnl_attr_nest_end(request, link_info);
  if (int err = transact(request)) {
    fail("create veth pair " + name + " <-> " + peer_name, err);
  }
}

void NetnsLinks::create_bridge(const std::string& name) {
  std::vector<char> buffer;
  nlmsghdr* request = start_request(buffer, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL);
  put_ifinfo(request, 0);
  mnl_attr_put_strz(request, IFLA_IFNAME, name.c_str());
  nlattr* link_info = mnl_attr_nest_start(request, IFLA_LINKINFO);
  mnl_attr_put_strz(request, IFLA_INFO_KIND, "bridge");
  nlattr* info_data = mnl_attr_nest_start(request, IFLA_INFO_DATA);
  // STP off (the default, said explicitly): ports forward as soon as they
  // are up instead of listening/learning for 2 x forward_delay (30 s).
  mnl_attr_put_u32(request, IFLA_BR_STP_STATE, 0);
  mnl_attr_nest_end(request, info_data);
  mnl_attr_nest_end(request, link_info);
  if (int err = transact(request)) fail("create bridge " + name, err);
}

void NetnsLinks::set_master(const std::string& device, const std::string& master) {
  int index = link_index(device);
  int master_index = link_index(master);
  if (index == 0) fail("attach " + device + " to " + master, ENODEV);
  if (master_index == 0) fail("attach " + device + " to " + master, ENODEV);
  std::vector<char> buffer;
  nlmsghdr* request = start_request(buffer, RTM_NEWLINK, 0);
  put_ifinfo(request, index);
  mnl_attr_put_u32(request, IFLA_MASTER, static_cast<uint32_t>(master_index));
  if (int err = transact(request)) fail("attach " + device + " to bridge " + master, err);
}

void NetnsLinks::set_up(const std::string& device) {
  int index = link_index(device);
  if (index == 0) fail("set " + device + " up", ENODEV);
  std::vector<char> buffer;
  nlmsghdr* request = start_request(buffer, RTM_NEWLINK, 0);
  ifinfomsg* info = put_ifinfo(request, index);
  info->ifi_change = IFF_UP;
  info->ifi_flags = IFF_UP;
  if (int err = transact(request)) fail("set " + device + " up", err);
}

void NetnsLinks::set_down(const std::string& device) {
  int index = link_index(device);
  if (index == 0) fail("set " + device + " down", ENODEV);
  std::vector<char> buffer;
  nlmsghdr* request = start_request(buffer, RTM_NEWLINK, 0);
  ifinfomsg* info = put_ifinfo(request, index);
  info->ifi_change = IFF_UP;
  info->ifi_flags = 0;
  if (int err = transact(request)) fail("set " + device + " down", err);
}

void NetnsLinks::set_gso_max_segs(const std::string& device, uint32_t segments) {
  int index = link_index(device);
  if (index == 0) fail("set gso_max_segs of " + device, ENODEV);
  std::vector<char> buffer;
  nlmsghdr* request = start_request(buffer, RTM_NEWLINK, 0);
  put_ifinfo(request, index);
  mnl_attr_put_u32(request, IFLA_GSO_MAX_SEGS, segments);
  if (int err = transact(request)) fail("set gso_max_segs of " + device, err);
}

void NetnsLinks::add_ipv4(const std::string& device, const std::string& address, int prefix_len) {
  in_addr parsed{};
  if (inet_pton(AF_INET, address.c_str(), &parsed) != 1 || prefix_len < 0 || prefix_len > 32) {
    throw InputError("IPv4 address '" + address + "/" + std::to_string(prefix_len) +
                     "': expected dotted quad and a prefix length 0-32");
  }
  int index = link_index(device);
  if (index == 0) fail("add address " + address + " to " + device, ENODEV);
  std::vector<char> buffer;
  nlmsghdr* request = start_request(buffer, RTM_NEWADDR, NLM_F_CREATE | NLM_F_EXCL);
  auto* info = static_cast<ifaddrmsg*>(mnl_nlmsg_put_extra_header(request, sizeof(ifaddrmsg)));
  info->ifa_family = AF_INET;
  info->ifa_prefixlen = static_cast<unsigned char>(prefix_len);
  info->ifa_scope = RT_SCOPE_UNIVERSE;
  info->ifa_index = static_cast<unsigned>(index);
  mnl_attr_put(request, IFA_LOCAL, sizeof(parsed), &parsed);
  mnl_attr_put(request, IFA_ADDRESS, sizeof(parsed), &parsed);
  if (int err = transact(request)) {
    fail("add address " + address + "/" + std::to_string(prefix_len) + " to " + device, err);
  }
}

namespace {

in_addr ipv4_or_throw(const std::string& address, const std::string& what) {
  in_addr parsed{};
  if (inet_pton(AF_INET, address.c_str(), &parsed) != 1)
    throw InputError(what + " '" + address + "': expected an IPv4 address (dotted quad)");
  return parsed;
}

}  // namespace

void NetnsLinks::add_route(const std::string& destination, int prefix_len,
                           const std::vector<NextHop>& hops) {
  put_route(destination, prefix_len, hops, NLM_F_CREATE | NLM_F_EXCL, "add");
}

void NetnsLinks::replace_route(const std::string& destination, int prefix_len,
                               const std::vector<NextHop>& hops) {
  put_route(destination, prefix_len, hops, NLM_F_CREATE | NLM_F_REPLACE, "replace");
}

void NetnsLinks::put_route(const std::string& destination, int prefix_len,
                           const std::vector<NextHop>& hops, uint16_t flags, const char* verb) {
  const in_addr dst = ipv4_or_throw(destination, "route destination");
  if (hops.empty() || prefix_len < 0 || prefix_len > 32)
    throw InputError("route to " + destination + ": expected a prefix length 0-32 and a next hop");
  std::vector<char> buffer;
  nlmsghdr* request = start_request(buffer, RTM_NEWROUTE, flags);
  auto* rt = static_cast<rtmsg*>(mnl_nlmsg_put_extra_header(request, sizeof(rtmsg)));
  rt->rtm_family = AF_INET;
  rt->rtm_dst_len = static_cast<unsigned char>(prefix_len);
  rt->rtm_table = RT_TABLE_MAIN;
  rt->rtm_protocol = RTPROT_STATIC;
  rt->rtm_scope = RT_SCOPE_UNIVERSE;
  rt->rtm_type = RTN_UNICAST;
  mnl_attr_put(request, RTA_DST, sizeof(dst), &dst);
  std::string described;
  if (hops.size() == 1) {
    const in_addr via = ipv4_or_throw(hops[0].gateway, "next hop");
    const int index = link_index(hops[0].device);
    if (index == 0) fail("route to " + destination + " via " + hops[0].device, ENODEV);
    mnl_attr_put(request, RTA_GATEWAY, sizeof(via), &via);
    mnl_attr_put_u32(request, RTA_OIF, static_cast<uint32_t>(index));
    described = hops[0].gateway;
  } else {
    nlattr* multipath = mnl_attr_nest_start(request, RTA_MULTIPATH);
    for (const NextHop& hop : hops) {
      const in_addr via = ipv4_or_throw(hop.gateway, "next hop");
      const int index = link_index(hop.device);
      if (index == 0) fail("route to " + destination + " via " + hop.device, ENODEV);
      // Each next hop: an rtnexthop header followed by its own attributes,
      // its length covering both (rtnetlink(7)).
      auto* nh = static_cast<rtnexthop*>(mnl_nlmsg_get_payload_tail(request));
      request->nlmsg_len += MNL_ALIGN(sizeof(rtnexthop));
      std::memset(nh, 0, sizeof(rtnexthop));
      nh->rtnh_ifindex = index;
      nh->rtnh_hops = 0;  // weight 1
      mnl_attr_put(request, RTA_GATEWAY, sizeof(via), &via);
      nh->rtnh_len = static_cast<unsigned short>(reinterpret_cast<char*>(mnl_nlmsg_get_payload_tail(request)) -
                                                 reinterpret_cast<char*>(nh));
      described += (described.empty() ? "" : ", ") + hop.gateway;
    }
    mnl_attr_nest_end(request, multipath);
  }
  if (int err = transact(request))
    fail(std::string(verb) + " route " + destination + "/" + std::to_string(prefix_len) + " via " +
             described,
         err);
}

bool NetnsLinks::delete_link(const std::string& device) {
  int index = link_index(device);
  if (index == 0) return false;
  std::vector<char> buffer;
  nlmsghdr* request = start_request(buffer, RTM_DELLINK, 0);
  put_ifinfo(request, index);
  int err = transact(request);
  if (err == ENODEV) return false;  // gone in between (its veth peer was deleted)
  if (err != 0) fail("delete link " + device, err);
  return true;
}

int NetnsLinks::link_index(const std::string& device) {
  try {
    return socket_.ifindex(device);
  } catch (const KernelError& e) {
    if (e.error() == ENODEV) return 0;
    fail("look up link " + device, e.error());
  }
}

}  // namespace fabriclab::runner
