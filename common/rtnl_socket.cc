#include "common/rtnl_socket.h"

#include <libmnl/libmnl.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>
#include <time.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "common/scoped_netns.h"

namespace fabriclab {

namespace {

// The kernel's extended-ack sentence (NLMSGERR_ATTR_MSG), if any. With
// NETLINK_CAP_ACK the request is not echoed, so the TLVs follow nlmsgerr.
std::string extack_message(const nlmsghdr* nlh) {
  if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS)) return "";
  const auto* err = static_cast<const nlmsgerr*>(mnl_nlmsg_get_payload(nlh));
  size_t offset = sizeof(nlmsgerr);
  if (!(nlh->nlmsg_flags & NLM_F_CAPPED)) offset += err->msg.nlmsg_len - sizeof(nlmsghdr);
  const char* start = static_cast<const char*>(mnl_nlmsg_get_payload(nlh)) + offset;
  const char* end = reinterpret_cast<const char*>(nlh) + nlh->nlmsg_len;
  std::string message;
  for (const char* p = start; p + sizeof(nlattr) <= end;) {
    const auto* a = reinterpret_cast<const nlattr*>(p);
    if (a->nla_len < sizeof(nlattr) || p + a->nla_len > end) break;
    if ((a->nla_type & NLA_TYPE_MASK) == NLMSGERR_ATTR_MSG)
      message.assign(
          static_cast<const char*>(mnl_attr_get_payload(a)),
          strnlen(static_cast<const char*>(mnl_attr_get_payload(a)), mnl_attr_get_payload_len(a)));
    p += MNL_ALIGN(a->nla_len);
  }
  while (!message.empty() && (message.back() == '.' || message.back() == '\n')) message.pop_back();
  return message;
}

struct CallbackState {
  const std::function<void(const nlmsghdr*)>* on_message = nullptr;
  int error = 0;
  std::string kernel_message;
};

int data_cb(const nlmsghdr* nlh, void* data) {
  auto* state = static_cast<CallbackState*>(data);
  if (state->on_message) (*state->on_message)(nlh);
  return MNL_CB_OK;
}

int error_cb(const nlmsghdr* nlh, void* data) {
  auto* state = static_cast<CallbackState*>(data);
  const auto* err = static_cast<const nlmsgerr*>(mnl_nlmsg_get_payload(nlh));
  if (err->error == 0) return MNL_CB_STOP;  // the ack
  state->error = -err->error;
  state->kernel_message = extack_message(nlh);
  return MNL_CB_ERROR;
}

// With a control-callback array, libmnl only uses its defaults for types
// beyond the array, so the end of a dump must be handled here.
int done_cb(const nlmsghdr*, void*) { return MNL_CB_STOP; }

}  // namespace

RtnlSocket::RtnlSocket(const std::string& netns) : netns_(netns) {
  ScopedNetns inside(netns);  // setns() is per thread: enter, open, leave
  open();
}

RtnlSocket::RtnlSocket(int netns_fd, std::string netns_label) : netns_(std::move(netns_label)) {
  ScopedNetns inside(netns_fd);
  open();
}

RtnlSocket::RtnlSocket(const std::string& netns, int protocol, std::string family)
    : netns_(netns), protocol_(protocol), family_(std::move(family)) {
  ScopedNetns inside(netns);
  open();
}

void RtnlSocket::open() {
  const std::string where = netns_.empty() ? "" : " in network namespace '" + netns_ + "'";
  nl_ = mnl_socket_open(protocol_);
  if (!nl_) {
    const int e = errno;
    throw KernelError("cannot open a " + family_ + " netlink socket" + where + ": " + strerror(e),
                      e, "");
  }
  int one = 1;
  mnl_socket_setsockopt(nl_, NETLINK_EXT_ACK, &one, sizeof one);
  mnl_socket_setsockopt(nl_, NETLINK_CAP_ACK, &one, sizeof one);
  if (mnl_socket_bind(nl_, 0, MNL_SOCKET_AUTOPID) < 0) {
    int e = errno;
    mnl_socket_close(nl_);
    nl_ = nullptr;
    throw std::runtime_error("cannot bind a " + family_ + " netlink socket" + where + ": " +
                             strerror(e));
  }
  portid_ = mnl_socket_get_portid(nl_);
  seq_ = static_cast<uint32_t>(time(nullptr));  // as tc does
}

RtnlSocket::~RtnlSocket() {
  if (nl_) mnl_socket_close(nl_);
}

void RtnlSocket::request(const nlmsghdr* m, const std::string& what) { dump(m, {}, what); }

void RtnlSocket::request(const Message& m, const std::string& what) {
  dump(reinterpret_cast<const nlmsghdr*>(m.data()), {}, what);
}

void RtnlSocket::dump(const Message& m, const std::function<void(const nlmsghdr*)>& on_message,
                      const std::string& what) {
  dump(reinterpret_cast<const nlmsghdr*>(m.data()), on_message, what);
}

void RtnlSocket::dump(const nlmsghdr* sent, const std::function<void(const nlmsghdr*)>& on_message,
                      const std::string& what) {
  if (mnl_socket_sendto(nl_, sent, sent->nlmsg_len) < 0)
    throw KernelError(what + ": " + strerror(errno), errno, "");
  std::vector<char> buf(MNL_SOCKET_BUFFER_SIZE * 4);
  CallbackState state;
  state.on_message = on_message ? &on_message : nullptr;
  mnl_cb_t ctl[NLMSG_MIN_TYPE] = {};
  ctl[NLMSG_ERROR] = error_cb;
  ctl[NLMSG_DONE] = done_cb;
  for (;;) {
    ssize_t n = mnl_socket_recvfrom(nl_, buf.data(), buf.size());
    if (n < 0) throw KernelError(what + ": " + strerror(errno), errno, "");
    int r = mnl_cb_run2(buf.data(), static_cast<size_t>(n), sent->nlmsg_seq, portid_, data_cb,
                        &state, ctl, NLMSG_MIN_TYPE);
    if (r == MNL_CB_ERROR || state.error) {
      int e = state.error ? state.error : errno;
      std::string msg = what + ": " + strerror(e);
      if (!state.kernel_message.empty()) msg += " (kernel: \"" + state.kernel_message + "\")";
      throw KernelError(msg, e, state.kernel_message);
    }
    if (r == MNL_CB_STOP) return;
  }
}

int RtnlSocket::ifindex(const std::string& device) {
  Message buf(MNL_SOCKET_BUFFER_SIZE, 0);
  nlmsghdr* nlh = mnl_nlmsg_put_header(buf.data());
  nlh->nlmsg_type = RTM_GETLINK;
  nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
  nlh->nlmsg_seq = next_seq();
  auto* ifm = static_cast<ifinfomsg*>(mnl_nlmsg_put_extra_header(nlh, sizeof(ifinfomsg)));
  ifm->ifi_family = AF_UNSPEC;
  mnl_attr_put_strz(nlh, IFLA_IFNAME, device.c_str());
  buf.resize(nlh->nlmsg_len);
  int index = 0;
  dump(
      buf,
      [&](const nlmsghdr* h) {
        if (h->nlmsg_type == RTM_NEWLINK)
          index = static_cast<const ifinfomsg*>(mnl_nlmsg_get_payload(h))->ifi_index;
      },
      "look up device " + device);
  if (index == 0) throw KernelError("look up device " + device + ": no such device", ENODEV, "");
  return index;
}

}  // namespace fabriclab
