// A NETLINK_ROUTE socket (libmnl) that belongs to one network namespace.
//
// The socket is opened while the calling thread is inside the namespace
// (common/scoped_netns.h) and stays bound to it afterwards, so every request
// made through it -- qdiscs, filters, link lookups -- acts in that namespace
// whatever thread later uses it. Extended acks are on, so kernel errors come
// with the kernel's own sentence (e.g. "Specified qdisc kind is unknown.").
//
// Errors: KernelError (errno + the kernel's message) for a refused request;
// std::runtime_error for socket failures; the namespace errors of ScopedNetns.
// Thread safety: one thread at a time (requests are sequence-numbered).
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>

#include "netem/netlink/qdisc_message.h"

struct mnl_socket;
struct nlmsghdr;

namespace fabriclab::netem::netlink {

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
  // netns: name under /run/netns ("" = the caller's); or netns_fd >= 0.
  explicit RtnlSocket(const std::string& netns = "", int netns_fd = -1);
  ~RtnlSocket();
  RtnlSocket(const RtnlSocket&) = delete;
  RtnlSocket& operator=(const RtnlSocket&) = delete;

  uint32_t next_seq() { return ++seq_; }

  // Sends `message` (which must ask for an ack) and waits for the kernel's
  // answer. Throws KernelError when the kernel refuses it; the message says
  // `what` failed ("add qdisc") and the kernel's words.
  void request(const Message& message, const std::string& what);

  // Sends a dump request and calls `on_message` for each answer.
  void dump(const Message& message, const std::function<void(const nlmsghdr*)>& on_message,
            const std::string& what);

  // The ifindex of `device` in this socket's namespace (RTM_GETLINK), or
  // throws KernelError with ENODEV.
  int ifindex(const std::string& device);

  const std::string& netns() const { return netns_; }

 private:
  void send(const Message& message, const std::string& what);
  mnl_socket* nl_ = nullptr;
  uint32_t portid_ = 0;
  uint32_t seq_ = 0;
  std::string netns_;
};

}  // namespace fabriclab::netem::netlink
