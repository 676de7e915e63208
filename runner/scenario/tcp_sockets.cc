#include "runner/scenario/tcp_sockets.h"

#include <arpa/inet.h>
#include <libmnl/libmnl.h>
#include <linux/inet_diag.h>
#include <linux/sock_diag.h>
#include <linux/tcp.h>
#include <netinet/in.h>

#include <cerrno>
#include <algorithm>
#include <cstring>
#include <memory>
#include <stdexcept>

#include "common/netlink_attributes.h"
#include "common/scoped_netns.h"

namespace fabriclab::runner {
namespace {

constexpr uint32_t kEstablished = 1;  // TCP_ESTABLISHED in the kernel's state numbering

std::string ipv4_text(const uint32_t* address) {
  char text[INET_ADDRSTRLEN] = {};
  ::inet_ntop(AF_INET, address, text, sizeof(text));
  return text;
}

int on_message(const nlmsghdr* header, void* data) {
  auto* out = static_cast<std::vector<TcpConnection>*>(data);
  const auto* msg = static_cast<const inet_diag_msg*>(mnl_nlmsg_get_payload(header));
  TcpConnection c;
  c.local = ipv4_text(msg->id.idiag_src);
  c.remote = ipv4_text(msg->id.idiag_dst);
  c.local_port = ntohs(msg->id.idiag_sport);
  c.remote_port = ntohs(msg->id.idiag_dport);
  for_each_message_attr(header, sizeof(*msg), [&](const nlattr* attr) {
    if (mnl_attr_get_type(attr) != INET_DIAG_INFO) return;
    // Older kernels send a shorter tcp_info: copy what there is.
    tcp_info info{};
    std::memcpy(&info, mnl_attr_get_payload(attr),
                std::min<size_t>(mnl_attr_get_payload_len(attr), sizeof(info)));
    c.rtt_ms = info.tcpi_rtt / 1000.0;
    c.total_retrans = info.tcpi_total_retrans;
    c.rto_ms = info.tcpi_rto / 1000.0;
    c.backoff = info.tcpi_backoff;
    c.retransmits = info.tcpi_retransmits;
  });
  out->push_back(c);
  return MNL_CB_OK;
}

}  // namespace

std::vector<TcpConnection> read_tcp_connections(int netns_fd) {
  std::unique_ptr<mnl_socket, int (*)(mnl_socket*)> socket(nullptr, mnl_socket_close);
  {
    // The socket belongs to the namespace it was opened in.
    ScopedNetns inside(netns_fd);
    socket.reset(mnl_socket_open(NETLINK_SOCK_DIAG));
  }
  if (!socket || mnl_socket_bind(socket.get(), 0, MNL_SOCKET_AUTOPID) < 0) {
    throw std::runtime_error(std::string("sock_diag socket: ") + std::strerror(errno));
  }

  char buffer[MNL_SOCKET_BUFFER_SIZE];
  nlmsghdr* header = mnl_nlmsg_put_header(buffer);
  header->nlmsg_type = SOCK_DIAG_BY_FAMILY;
  header->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
  header->nlmsg_seq = 1;
  auto* request = static_cast<inet_diag_req_v2*>(mnl_nlmsg_put_extra_header(header, sizeof(inet_diag_req_v2)));
  request->sdiag_family = AF_INET;
  request->sdiag_protocol = IPPROTO_TCP;
  request->idiag_ext = 1 << (INET_DIAG_INFO - 1);
  request->idiag_states = 1 << kEstablished;
  if (mnl_socket_sendto(socket.get(), header, header->nlmsg_len) < 0) {
    throw std::runtime_error(std::string("sock_diag dump: ") + std::strerror(errno));
  }

  std::vector<TcpConnection> connections;
  const unsigned port = mnl_socket_get_portid(socket.get());
  while (true) {
    const ssize_t n = mnl_socket_recvfrom(socket.get(), buffer, sizeof(buffer));
    if (n < 0) throw std::runtime_error(std::string("sock_diag dump: ") + std::strerror(errno));
    const int result = mnl_cb_run(buffer, static_cast<size_t>(n), 1, port, on_message, &connections);
    if (result == MNL_CB_STOP) break;
    if (result < 0) throw std::runtime_error(std::string("sock_diag dump: ") + std::strerror(errno));
  }
  return connections;
}

}  // namespace fabriclab::runner
