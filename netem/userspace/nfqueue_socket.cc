#include "netem/userspace/nfqueue_socket.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <libmnl/libmnl.h>
#include <libnetfilter_queue/libnetfilter_queue.h>
#include <linux/netfilter.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <string>
#include <system_error>

namespace fabriclab::netem::userspace {

namespace {

constexpr size_t kSendBufferBytes = 64 * 1024;  // ~2000 verdicts per sendmsg
constexpr size_t kRecvBufferBytes = 256 * 1024;
constexpr size_t kMaxVerdictBytes = 64;  // one verdict message, aligned

std::runtime_error queue_error(uint16_t queue, const std::string& what, int err) {
  std::string msg = "NFQUEUE " + std::to_string(queue) + ": " + what + ": " + std::strerror(err);
  if (err == EPERM)
    msg +=
        " (needs CAP_NET_ADMIN in the namespace: run as root or rootless "
        "inside a user namespace)";
  return std::runtime_error(msg);
}

struct Delivery {
  const std::function<void(const QueuedPacket&)>* on_packet;
  size_t packets = 0;
};

int on_message(const nlmsghdr* nlh, void* data) {
  auto* delivery = static_cast<Delivery*>(data);
  const std::optional<QueuedPacket> packet = parse_queued_packet(nlh);
  if (!packet) return MNL_CB_OK;
  (*delivery->on_packet)(*packet);
  ++delivery->packets;
  return MNL_CB_OK;
}

}  // namespace

NfqueueSocket::NfqueueSocket(const Options& options)
    : send_buf_(kSendBufferBytes), recv_buf_(kRecvBufferBytes) {
  socket_ = mnl_socket_open2(NETLINK_NETFILTER, SOCK_CLOEXEC);
  if (socket_ == nullptr)
    throw queue_error(options.first_queue, "cannot open netlink socket", errno);
  try {
    if (mnl_socket_bind(socket_, 0, MNL_SOCKET_AUTOPID) < 0) {
      throw queue_error(options.first_queue, "cannot bind netlink socket", errno);
    }
    portid_ = mnl_socket_get_portid(socket_);
    int rcvbuf = options.receive_buffer_bytes;
    // FORCE goes past net.core.rmem_max (we hold CAP_NET_ADMIN); fall back quietly.
    if (setsockopt(fd(), SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof rcvbuf) != 0) {
      setsockopt(fd(), SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
    }
    // Overflow is already counted by the kernel (user_dropped); an ENOBUFS
    // error on recv would only interrupt the loop.
    int one = 1;
    mnl_socket_setsockopt(socket_, NETLINK_NO_ENOBUFS, &one, sizeof one);

    proc_fd_ = ::open("/proc/thread-self/net/netfilter/nfnetlink_queue", O_RDONLY | O_CLOEXEC);

    int last_err = 0;
    bool bound = false;
    for (uint32_t q = options.first_queue;
         q < static_cast<uint32_t>(options.first_queue) + options.queues_to_try && q <= 0xffff;
         ++q) {
      if (queue_in_use(static_cast<uint16_t>(q))) continue;
      char buf[MNL_SOCKET_BUFFER_SIZE];
      nlmsghdr* nlh = nfq_nlmsg_put(buf, NFQNL_MSG_CONFIG, q);
      nfq_nlmsg_cfg_put_cmd(nlh, AF_UNSPEC, NFQNL_CFG_CMD_BIND);
      try {
        request(buf);
      } catch (const std::system_error& e) {
        last_err = e.code().value();
        // The kernel answers EPERM both to an unprivileged caller and when
        // another socket owns the queue; only the second shows in /proc.
        if (last_err == EBUSY || (last_err == EPERM && queue_in_use(static_cast<uint16_t>(q)))) {
          continue;
        }
        throw queue_error(q, "cannot bind queue", last_err);
      }
      queue_num_ = static_cast<uint16_t>(q);
      bound = true;
      break;
    }
    if (!bound) {
      throw queue_error(options.first_queue,
                        "no free queue among " + std::to_string(options.queues_to_try), last_err);
    }

    char buf[MNL_SOCKET_BUFFER_SIZE];
    nlmsghdr* nlh = nfq_nlmsg_put(buf, NFQNL_MSG_CONFIG, queue_num_);
    // COPY_PACKET of 1 byte rather than COPY_META: only then does the kernel
    // report the packet's length (NFQA_CAP_LEN) for the byte counters.
    nfq_nlmsg_cfg_put_params(nlh, NFQNL_COPY_PACKET, static_cast<int>(std::max(options.copy_bytes, 1u)));
    nfq_nlmsg_cfg_put_qmaxlen(nlh, options.queue_maxlen);
    mnl_attr_put_u32(nlh, NFQA_CFG_FLAGS, htonl(NFQA_CFG_F_GSO));
    mnl_attr_put_u32(nlh, NFQA_CFG_MASK, htonl(NFQA_CFG_F_GSO | NFQA_CFG_F_FAIL_OPEN));
    try {
      request(buf);
    } catch (const std::system_error& e) {
      throw queue_error(queue_num_, "cannot configure queue (copy mode, maxlen, GSO)",
                        e.code().value());
    }
  } catch (...) {
    if (proc_fd_ >= 0) ::close(proc_fd_);
    mnl_socket_close(socket_);  // closing unbinds
    throw;
  }
}

NfqueueSocket::~NfqueueSocket() {
  if (proc_fd_ >= 0) ::close(proc_fd_);
  char buf[MNL_SOCKET_BUFFER_SIZE];
  nlmsghdr* nlh = nfq_nlmsg_put(buf, NFQNL_MSG_CONFIG, queue_num_);
  nfq_nlmsg_cfg_put_cmd(nlh, AF_UNSPEC, NFQNL_CFG_CMD_UNBIND);
  // Best effort: closing the socket unbinds the queue anyway.
  mnl_socket_sendto(socket_, nlh, nlh->nlmsg_len);
  mnl_socket_close(socket_);
}

int NfqueueSocket::fd() const { return mnl_socket_get_fd(socket_); }

void NfqueueSocket::request(char* buf) {
  auto* nlh = reinterpret_cast<nlmsghdr*>(buf);
  nlh->nlmsg_flags |= NLM_F_ACK;
  nlh->nlmsg_seq = ++seq_;
  if (mnl_socket_sendto(socket_, nlh, nlh->nlmsg_len) < 0) {
    throw std::system_error(errno, std::generic_category());
  }
  for (;;) {
    ssize_t n = mnl_socket_recvfrom(socket_, recv_buf_.data(), recv_buf_.size());
    if (n < 0) throw std::system_error(errno, std::generic_category());
    int r = mnl_cb_run(recv_buf_.data(), n, nlh->nlmsg_seq, portid_, nullptr, nullptr);
    if (r < 0) throw std::system_error(errno, std::generic_category());
    if (r == MNL_CB_STOP) return;  // the ack
  }
}

size_t NfqueueSocket::receive(const std::function<void(uint32_t, uint32_t)>& on_packet) {
  return receive(std::function<void(const QueuedPacket&)>(
      [&](const QueuedPacket& packet) { on_packet(packet.id, packet.length); }));
}

size_t NfqueueSocket::receive(const std::function<void(const QueuedPacket&)>& on_packet) {
  Delivery delivery{&on_packet};
  for (;;) {
    ssize_t n = ::recv(fd(), recv_buf_.data(), recv_buf_.size(), MSG_DONTWAIT);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS) break;
      throw queue_error(queue_num_, "receive", errno);
    }
    // Errors the kernel reports for our verdicts (e.g. ENOENT for an id it
    // no longer holds) arrive here too; mnl_cb_run returns -1 for them and
    // there is nothing to undo, so they are skipped.
    mnl_cb_run(recv_buf_.data(), n, 0, portid_, on_message, &delivery);
  }
  return delivery.packets;
}

void NfqueueSocket::append(uint16_t type, uint32_t id, uint32_t verdict, const uint32_t* mark) {
  if (send_len_ + kMaxVerdictBytes > send_buf_.size()) flush();
  char* at = send_buf_.data() + send_len_;
  nlmsghdr* nlh = nfq_nlmsg_put(at, type, queue_num_);
  nfq_nlmsg_verdict_put(nlh, static_cast<int>(id), static_cast<int>(verdict));
  if (mark) nfq_nlmsg_verdict_put_mark(nlh, *mark);
  send_len_ += MNL_ALIGN(nlh->nlmsg_len);
}

void NfqueueSocket::add_verdict(uint32_t packet_id, uint32_t verdict) {
  append(NFQNL_MSG_VERDICT, packet_id, verdict);
}

void NfqueueSocket::add_verdict_with_mark(uint32_t packet_id, uint32_t verdict, uint32_t mark) {
  append(NFQNL_MSG_VERDICT, packet_id, verdict, &mark);
}

void NfqueueSocket::add_batch_verdict(uint32_t max_id, uint32_t verdict) {
  append(NFQNL_MSG_VERDICT_BATCH, max_id, verdict);
}

void NfqueueSocket::flush() {
  if (send_len_ == 0) return;
  // Netlink to the kernel is processed synchronously inside sendmsg; a
  // failure here means the verdicts were not applied, so it is an error.
  ssize_t n;
  do {
    n = mnl_socket_sendto(socket_, send_buf_.data(), send_len_);
  } while (n < 0 && errno == EINTR);
  send_len_ = 0;
  if (n < 0) throw queue_error(queue_num_, "sending verdicts", errno);
}

bool NfqueueSocket::queue_in_use(uint16_t queue) const { return read_counters(queue).has_value(); }

KernelQueueCounters NfqueueSocket::kernel_counters() const {
  return read_counters(queue_num_).value_or(KernelQueueCounters{});
}

std::optional<KernelQueueCounters> NfqueueSocket::read_counters(uint16_t queue_wanted) const {
  KernelQueueCounters counters;
  if (proc_fd_ < 0) return std::nullopt;
  char text[8192];
  ssize_t n = ::pread(proc_fd_, text, sizeof text - 1, 0);
  if (n <= 0) return std::nullopt;
  text[n] = '\0';
  // One line per queue: queue portid total copy_mode copy_range
  // queue_dropped user_dropped id_sequence 1
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    uint64_t queue = 0, portid = 0, total = 0, mode = 0, range = 0, qdrop = 0, udrop = 0;
    if (!(fields >> queue >> portid >> total >> mode >> range >> qdrop >> udrop)) continue;
    if (queue != queue_wanted) continue;
    counters.queue_total = total;
    counters.queue_dropped = qdrop;
    counters.user_dropped = udrop;
    return counters;
  }
  return std::nullopt;
}

}  // namespace fabriclab::netem::userspace
