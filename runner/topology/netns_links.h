// The links and addresses of one network namespace: the few rtnetlink
// requests a lab topology needs (veth pairs, a bridge, up, an IPv4 address,
// delete), built here and sent through the shared rtnetlink socket
// (common/rtnl_socket.h). Never shells out to `ip`.
//
// Namespace binding: the socket is opened inside `netns_fd` and stays bound
// to that namespace (see common/rtnl_socket.h), so every operation on the
// object acts inside it, whatever thread calls it later.
//
// Ownership: the socket is owned; `netns_fd` is not (it must only be valid
// during construction). Not thread-safe: one caller at a time.
//
// Errors: std::runtime_error "netlink: <operation>: <kernel's reason>", with
// a hint for EPERM (privileges) and EEXIST (a leftover of an earlier run).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/rtnl_socket.h"

struct nlmsghdr;

namespace fabriclab::runner {

class NetnsLinks {
 public:
  // netns_fd < 0: the calling thread's namespace. `netns_label` names the
  // namespace in error messages (e.g. "fl-3fa2c1-r0").
  NetnsLinks(int netns_fd, std::string netns_label);

  // Creates a veth pair: `name` in this socket's namespace, `peer_name` in the
  // namespace `peer_netns_fd` refers to (< 0: this namespace). Both start down.
  void create_veth(const std::string& name, const std::string& peer_name, int peer_netns_fd);
  // Creates a Linux bridge (STP off, so ports forward at once). Starts down.
  void create_bridge(const std::string& name);
  // Enslaves `device` to bridge `master`.
  void set_master(const std::string& device, const std::string& master);
  // Sets IFF_UP on `device`.
  void set_up(const std::string& device);
  // Clears IFF_UP on `device` (a link fault: runner/scenario/link_fault.h);
  // its veth peer loses its carrier.
  void set_down(const std::string& device);
  // At most `segments` MTU-sized segments per packet the stack hands the
  // device (IFLA_GSO_MAX_SEGS; 1 = the stack segments everything itself, so
  // every packet on the link is one wire frame).
  void set_gso_max_segs(const std::string& device, uint32_t segments);
  // Adds an IPv4 address with its prefix, e.g. ("eth0", "10.77.0.1", 24).
  void add_ipv4(const std::string& device, const std::string& address, int prefix_len);
  // A next hop of a route: the neighbour's address, reached over `device`.
  struct NextHop {
    std::string gateway;  // IPv4
    std::string device;
  };
  // Adds a route to `destination`/`prefix_len` via one next hop, or, with
  // several, one multipath (ECMP) route over all of them with equal weights
  // (RTA_MULTIPATH, as `ip route add D nexthop via A dev X nexthop via B dev
  // Y`): the kernel picks a next hop per flow by the namespace's
  // fib_multipath_hash_policy.
  void add_route(const std::string& destination, int prefix_len, const std::vector<NextHop>& hops);
  // The same, replacing the route to `destination`/`prefix_len` if there is
  // one (`ip route replace`): an ECMP route losing or regaining a next hop
  // (runner/scenario/uplink_fault.h).
  void replace_route(const std::string& destination, int prefix_len,
                     const std::vector<NextHop>& hops);
  // Deletes `device` (a veth pair goes as a whole). Returns false if it did
  // not exist; throws on any other failure.
  bool delete_link(const std::string& device);
  // Interface index of `device` in this namespace, or 0 if it does not exist.
  int link_index(const std::string& device);

  const std::string& netns_label() const { return netns_label_; }

 private:
  // Sends one request with NLM_F_ACK and waits for the kernel's answer.
  // Returns 0 or the kernel's errno (positive).
  int transact(nlmsghdr* request);
  void put_route(const std::string& destination, int prefix_len, const std::vector<NextHop>& hops,
                 uint16_t flags, const char* verb);
  [[noreturn]] void fail(const std::string& what, int err) const;

  std::string netns_label_;
  RtnlSocket socket_;
};

}  // namespace fabriclab::runner
