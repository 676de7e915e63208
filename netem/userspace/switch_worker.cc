#include "netem/userspace/switch_worker.h"

#include <arpa/inet.h>
#include <linux/netfilter.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <spdlog/spdlog.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <limits>
#include <stdexcept>

#include "common/input_error.h"
#include "common/scoped_netns.h"
#include "netem/userspace/nfqueue_socket.h"
#include "netem/userspace/nft_switch_rules.h"

namespace fabriclab::netem::userspace {
namespace {

constexpr uint32_t kEthernetHeaderBytes = 14;  // a port is charged for the frame

int64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

uint32_t ipv4(const std::string& text, const char* what) {
  in_addr a{};
  if (inet_pton(AF_INET, text.c_str(), &a) != 1)
    throw InputError(std::string(what) + " '" + text + "': expected an IPv4 address");
  return a.s_addr;
}

std::vector<PortSpec> specs_of(const std::vector<SwitchPortSetting>& ports) {
  std::vector<PortSpec> specs;
  for (const SwitchPortSetting& p : ports) specs.push_back(p.spec);
  return specs;
}

std::vector<std::string> addresses_of(const std::vector<SwitchPortSetting>& ports) {
  std::vector<std::string> out;
  for (const SwitchPortSetting& p : ports) out.push_back(p.address);
  return out;
}

// Head-of-line blocking needs every packet of a paused link held, wherever
// it goes: with a lossless port, each sender without a port of its own gets
// one at line rate (it never queues, never drops, only waits when its
// ingress is paused). Other policies leave those packets to the bridge.
std::vector<SwitchPortSetting> with_line_rate_ports(std::vector<SwitchPortSetting> ports,
                                                    const std::vector<std::string>& senders) {
  const bool lossless = std::any_of(ports.begin(), ports.end(), [](const SwitchPortSetting& p) {
    return p.spec.policy == QueuePolicy::kLossless;
  });
  if (!lossless) return ports;
  PortSpec line_rate;
  line_rate.rate_bytes_per_s = 100'000'000'000ULL / 8;  // 100 Gbit/s: no wait worth the name
  line_rate.limit_bytes = 64 * 1024 * 1024;
  const std::vector<SwitchPortSetting> queued = ports;
  for (const std::string& sender : senders) {
    const bool has_port = std::any_of(queued.begin(), queued.end(),
                                      [&](const SwitchPortSetting& p) { return p.address == sender; });
    if (!has_port) ports.push_back({sender, line_rate});
  }
  return ports;
}

int index_of(const std::vector<uint32_t>& addresses, uint32_t address) {
  auto it = std::find(addresses.begin(), addresses.end(), address);
  return it == addresses.end() ? -1 : static_cast<int>(it - addresses.begin());
}

}  // namespace

SwitchWorker::SwitchWorker(int netns_fd, std::vector<SwitchPortSetting> queued_ports,
                           std::vector<std::string> senders, uint64_t seed)
    : reported_ports_(static_cast<int>(queued_ports.size())) {
  const std::vector<SwitchPortSetting> ports = with_line_rate_ports(std::move(queued_ports), senders);
  model_ = std::make_unique<SwitchModel>(specs_of(ports), static_cast<int>(senders.size()) + 1, seed);
  for (const SwitchPortSetting& p : ports) port_addresses_.push_back(ipv4(p.address, "switch port"));
  for (const std::string& s : senders) sender_addresses_.push_back(ipv4(s, "sender"));
  {
    ScopedNetns in_switch(netns_fd);
    NfqueueSocket::Options options;
    options.copy_bytes = kIpv4HeaderBytes;
    socket_ = std::make_unique<NfqueueSocket>(options);
  }
  rules_ = std::make_unique<NftSwitchRules>(netns_fd, addresses_of(ports), socket_->queue_num());
  stop_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (stop_fd_ < 0) throw std::runtime_error(std::string("eventfd: ") + std::strerror(errno));
  thread_ = std::thread(&SwitchWorker::run, this);
}

SwitchWorker::~SwitchWorker() {
  stop();
  if (stop_fd_ >= 0) ::close(stop_fd_);
}

uint16_t SwitchWorker::queue_num() const { return socket_->queue_num(); }

std::string SwitchWorker::describe() const {
  // The family says the way (nft_switch_rules.h): the bridge's own hooks, or
  // the ip family's through br_netfilter.
  const bool bridge = rules_ == nullptr || rules_->family() == NFPROTO_BRIDGE;
  return "userspace switch (NFQUEUE " + std::to_string(queue_num()) + ", nft table " +
         (bridge ? "bridge " : "ip ") + switch_table_name(queue_num()) +
         (bridge ? "" : " through br_netfilter") + ")";
}


void SwitchWorker::stop() {
  if (stopped_.exchange(true)) return;
  rules_.reset();  // no new packets; then the thread lets the held ones go
  uint64_t one = 1;
  (void)::write(stop_fd_, &one, sizeof one);
  if (thread_.joinable()) thread_.join();
}

SwitchCounters SwitchWorker::counters() {
  std::lock_guard<std::mutex> lock(model_mutex_);
  const int64_t now = now_ns();
  SwitchCounters c;
  for (int p = 0; p < reported_ports_; ++p) c.ports.push_back(model_->port_counters(p, now));
  for (size_t i = 0; i <= sender_addresses_.size(); ++i)
    c.ingresses.push_back(model_->ingress_counters(static_cast<int>(i), now));
  return c;
}

std::vector<uint64_t> SwitchWorker::take_window_max() {
  std::lock_guard<std::mutex> lock(model_mutex_);
  std::vector<uint64_t> max;
  for (int p = 0; p < reported_ports_; ++p) max.push_back(model_->take_window_max(p));
  return max;
}

std::vector<MarkingBucket> SwitchWorker::marking_trace(int port) {
  std::lock_guard<std::mutex> lock(model_mutex_);
  return model_->marking_trace(port);
}

void SwitchWorker::run() {
  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  sched_param param{};
  param.sched_priority = 1;  // as the impairment worker: queue_worker.cc says why
  pthread_setschedparam(pthread_self(), SCHED_FIFO, &param);
  const int other_ingress = static_cast<int>(sender_addresses_.size());

  auto on_packet = [&](const QueuedPacket& packet) {
    const std::optional<Ipv4Head> ip = read_ipv4_head(packet);
    if (!ip) {
      socket_->add_verdict(packet.id, NF_ACCEPT);  // not IPv4: not ours to queue
      return;
    }
    const int port = index_of(port_addresses_, ip->destination);
    if (port < 0) {
      socket_->add_verdict(packet.id, NF_ACCEPT);
      return;
    }
    const int ingress = index_of(sender_addresses_, ip->source);
    SwitchPacket p;
    p.token = packet.id;
    p.ingress = ingress < 0 ? other_ingress : ingress;
    p.port = port;
    p.bytes = packet.length + kEthernetHeaderBytes;
    p.ect = ip->ect;
    model_->arrive(now_ns(), p);
  };
  auto give_verdicts = [&](int64_t until) {
    for (const SwitchVerdict& v : model_->take(until)) {
      const auto id = static_cast<uint32_t>(v.token);
      if (v.kind == SwitchVerdict::kDrop) {
        socket_->add_verdict(id, NF_DROP);
      } else if (v.kind == SwitchVerdict::kAcceptCe) {
        socket_->add_verdict_with_mark(id, NF_ACCEPT, kCeMark);
      } else {
        socket_->add_verdict(id, NF_ACCEPT);
      }
    }
    socket_->flush();
  };

  pollfd fds[2] = {{socket_->fd(), POLLIN, 0}, {stop_fd_, POLLIN, 0}};
  try {
    for (;;) {
      int64_t next;
      {
        std::lock_guard<std::mutex> lock(model_mutex_);
        give_verdicts(now_ns());
        next = model_->next_departure_ns();
      }
      timespec timeout{};
      timespec* wait = nullptr;
      if (next != std::numeric_limits<int64_t>::max()) {
        const int64_t left = std::max<int64_t>(0, next - now_ns());
        timeout.tv_sec = left / 1000000000;
        timeout.tv_nsec = left % 1000000000;
        wait = &timeout;
      }
      if (ppoll(fds, 2, wait, nullptr) < 0) {
        if (errno == EINTR) continue;
        throw std::runtime_error(std::string("ppoll: ") + std::strerror(errno));
      }
      if (fds[1].revents != 0) break;
      if (fds[0].revents != 0) {
        std::lock_guard<std::mutex> lock(model_mutex_);
        socket_->receive(on_packet);
      }
    }
    // Stopping: the rules are gone; what is held leaves now, drained at once.
    std::lock_guard<std::mutex> lock(model_mutex_);
    socket_->receive(on_packet);
    give_verdicts(std::numeric_limits<int64_t>::max());
  } catch (const std::exception& e) {
    spdlog::error("userspace switch on NFQUEUE {}: {}; its held packets are lost",
                  socket_->queue_num(), e.what());
  }
}

}  // namespace fabriclab::netem::userspace

namespace fabriclab::netem {

std::unique_ptr<Switch> make_userspace_switch(int netns_fd, std::vector<SwitchPortSetting> ports,
                                              std::vector<std::string> senders, uint64_t seed) {
  return std::make_unique<userspace::SwitchWorker>(netns_fd, std::move(ports), std::move(senders),
                                                   seed);
}

}  // namespace fabriclab::netem
