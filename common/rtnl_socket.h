// A NETLINK_ROUTE (rtnetlink) socket, libmnl underneath, that belongs to one
// network namespace: open, bind, send a request and wait for the kernel's
// ack, or read a dump -- the part every rtnetlink user shares. What goes into
// the messages stays with its users: links and addresses in
// runner/topology/netns_links.h, qdiscs and filters in netem/netlink/.
//
// Namespace binding: a netlink socket belongs to the namespace of the thread
// that created it, for its whole life. The constructor enters the namespace
// just long enough to open the socket (common/scoped_netns.h), so every
// request made through it acts in that namespace whatever thread later uses
// it. Extended acks are on, so a refusal comes with the kernel's own sentence
// (e.g. "Specified qdisc kind is unknown.").
//
// Ownership: RAII; the destructor closes the socket. A namespace fd passed
// in is not owned and need only be valid during construction.
// Errors: KernelError (errno, the kernel's sentence, and what was being done)
// for a refused request or a failed send/receive; std::runtime_error naming
// the namespace for a socket that cannot be opened or bound; the namespace
// errors of ScopedNetns.
// Thread safety: one thread at a time (requests are sequence-numbered).
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

struct mnl_socket;
struct nlmsghdr;

namespace fabriclab {

// The kernel refused a request (or the socket failed while asking).
class KernelError : public std::runtime_error {
 public:
  KernelError(const std::string& what, int error, std::string kernel_message)
      : std::runtime_error(what), error_(error), kernel_message_(std::move(kernel_message)) {}
  int error() const { return error_; }                                   // positive errno
  const std::string& kernel_message() const { return kernel_message_; }  // extack, may be ""

 private:
  int error_;
  std::string kernel_message_;
};

class RtnlSocket {
 public:
  using Message = std::vector<uint8_t>;  // one whole netlink message

  // In the namespace named `netns` (/run/netns/NAME; "" = the caller's).
  explicit RtnlSocket(const std::string& netns = "");
  // In the namespace `netns_fd` refers to (< 0: the caller's); `netns_label`
  // names it in messages (e.g. "fl-3fa2c1-r0").
  RtnlSocket(int netns_fd, std::string netns_label);
  // Another netlink family with the same request/ack/dump rules, e.g.
  // NETLINK_RDMA (runner/rdma/); `family` names it in messages ("RDMA").
  // Throws KernelError with the errno of socket() (EPROTONOSUPPORT: the
  // kernel has no such family) or std::runtime_error for a failed bind.
  RtnlSocket(const std::string& netns, int protocol, std::string family);
  ~RtnlSocket();
  RtnlSocket(const RtnlSocket&) = delete;
  RtnlSocket& operator=(const RtnlSocket&) = delete;

  // The sequence number for the next message; the caller stamps it in.
  uint32_t next_seq() { return ++seq_; }

  // Sends `message` (which must ask for an ack, NLM_F_ACK) and waits for the
  // kernel's answer. Throws KernelError when the kernel refuses it; the
  // message says `what` failed ("add qdisc") and the kernel's words.
  void request(const nlmsghdr* message, const std::string& what);
  void request(const Message& message, const std::string& what);

  // Sends a request (a dump, or one asking for an ack) and calls
  // `on_message` for each answer until the kernel's done or ack.
  void dump(const nlmsghdr* message, const std::function<void(const nlmsghdr*)>& on_message,
            const std::string& what);
  void dump(const Message& message, const std::function<void(const nlmsghdr*)>& on_message,
            const std::string& what);

  // The ifindex of `device` in this socket's namespace (RTM_GETLINK), or
  // throws KernelError with ENODEV.
  int ifindex(const std::string& device);

  // The namespace's name as given ("" = the caller's, or the fd's label).
  const std::string& netns() const { return netns_; }

 private:
  void open();
  mnl_socket* nl_ = nullptr;
  uint32_t portid_ = 0;
  uint32_t seq_ = 0;
  std::string netns_;
  int protocol_ = 0;  // NETLINK_ROUTE unless another family was asked for
  std::string family_ = "route";
};

}  // namespace fabriclab
