// A route-netlink (rtnetlink) socket bound to one network namespace, with the
// few link and address operations a lab topology needs. Speaks netlink through
// libmnl; never shells out to `ip`.
//
// Namespace binding: a netlink socket belongs to the namespace of the thread
// that created it, for its whole life. The constructor enters `netns_fd` just
// long enough to create the socket (common/scoped_netns.h), so every operation
// on the object acts inside that namespace, whatever thread calls it later.
//
// Ownership: the socket is owned; `netns_fd` is not (it must only be valid
// during construction). Not thread-safe: one caller at a time.
//
// Errors: std::runtime_error "netlink: <operation>: <kernel's reason>", with
// a hint for EPERM (privileges) and EEXIST (a leftover of an earlier run).
#pragma once

#include <string>

struct mnl_socket;
struct nlmsghdr;

namespace fabriclab::runner {

class RtnlSocket {
 public:
  // netns_fd < 0: the calling thread's namespace. `netns_label` names the
  // namespace in error messages (e.g. "fl-3fa2c1-r0").
  RtnlSocket(int netns_fd, std::string netns_label);
  ~RtnlSocket();
  RtnlSocket(const RtnlSocket&) = delete;
  RtnlSocket& operator=(const RtnlSocket&) = delete;

  // Creates a veth pair: `name` in this socket's namespace, `peer_name` in the
  // namespace `peer_netns_fd` refers to (< 0: this namespace). Both start down.
  void create_veth(const std::string& name, const std::string& peer_name, int peer_netns_fd);
  // Creates a Linux bridge (STP off, so ports forward at once). Starts down.
  void create_bridge(const std::string& name);
  // Enslaves `device` to bridge `master`.
  void set_master(const std::string& device, const std::string& master);
  // Sets IFF_UP on `device`.
  void set_up(const std::string& device);
  // Adds an IPv4 address with its prefix, e.g. ("eth0", "10.77.0.1", 24).
  void add_ipv4(const std::string& device, const std::string& address, int prefix_len);
  // Deletes `device` (a veth pair goes as a whole). Returns false if it did
  // not exist; throws on any other failure.
  bool delete_link(const std::string& device);
  // Interface index of `device` in this namespace, or 0 if it does not exist.
  int link_index(const std::string& device);

  const std::string& netns_label() const { return netns_label_; }

 private:
  // Sends one request with NLM_F_ACK and waits for the kernel's answer.
  // Returns 0 or the kernel's errno (positive); `what` is for messages only.
  int transact(nlmsghdr* request);
  [[noreturn]] void fail(const std::string& what, int err) const;

  mnl_socket* socket_ = nullptr;
  unsigned port_id_ = 0;
  unsigned sequence_ = 0;
  std::string netns_label_;
};

}  // namespace fabriclab::runner
