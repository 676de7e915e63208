#include "netem/userspace/queue_worker.h"

#include <linux/netfilter.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <spdlog/spdlog.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <stdexcept>

#include "netem/impairment_model.h"
#include "netem/spec_limit.h"
#include "netem/rate_serializer.h"
#include "netem/userspace/held_packets.h"

namespace fabriclab::netem::userspace {

namespace {

// NFQUEUE reports the IP packet's length; a qdisc on the Ethernet device
// (netem, tbf) counts the frame, its 14-byte header included. A rate is
// charged for the frame, as netem charges it.
constexpr uint32_t kEthernetHeaderBytes = 14;

int64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

}  // namespace

QueueWorker::QueueWorker(std::unique_ptr<NfqueueSocket> socket, const Spec& spec, uint64_t seed)
    : socket_(std::move(socket)) {
  stop_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (stop_fd_ < 0) {
    throw std::runtime_error(std::string("eventfd: ") + std::strerror(errno));
  }
  thread_ = std::thread(&QueueWorker::run, this, spec, seed);
}

QueueWorker::~QueueWorker() {
  stop();
  ::close(stop_fd_);
}

void QueueWorker::stop() {
  if (!thread_.joinable()) return;
  uint64_t one = 1;
  (void)::write(stop_fd_, &one, sizeof one);
  thread_.join();
}

WorkerCounters QueueWorker::counters() const {
  WorkerCounters c;
  c.packets = packets_.load(std::memory_order_relaxed);
  c.bytes = bytes_.load(std::memory_order_relaxed);
  c.drops = drops_.load(std::memory_order_relaxed);
  c.backlog_packets = backlog_.load(std::memory_order_relaxed);
  return c;
}

void QueueWorker::run(Spec spec, uint64_t seed) {
  // Wake-ups at the requested ns, not rounded up by the default 50 us slack.
  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  // netem runs in the kernel's timer interrupt, unaffected by a busy CPU; the
  // nearest a thread gets is the lowest real-time priority, which preempts
  // ordinary tasks (compilers, the ranks themselves) at each release. The
  // loop only ever blocks or works, and the kernel's RT throttling bounds
  // even a flood. Without the privilege it runs as an ordinary thread.
  sched_param param{};
  param.sched_priority = 1;
  if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &param) != 0) {
    spdlog::debug("NFQUEUE {}: no real-time priority; delays may stretch on a busy CPU",
                  socket_->queue_num());
  }

  ImpairmentModel model(spec, seed);
  RateSerializer serializer(spec);
  const bool in_order = model.keeps_order();
  // 0: no limit of ours. A rate builds a queue, so it gets netem's limit
  // (the one the netem backend would send: netem/spec_limit.h) when none is given.
  const size_t limit = spec.limit_packets    ? spec.limit_packets
                       : serializer.active() ? derive_limit_packets(spec)
                                             : 0;
  HeldPackets held;

  auto on_packet = [&](uint32_t id, uint32_t length) {
    packets_.fetch_add(1, std::memory_order_relaxed);
    bytes_.fetch_add(length, std::memory_order_relaxed);
    PacketFate fate = model.next();
    // netem checks its limit after the loss decision and before the delay.
    if (fate.drop || (limit != 0 && held.size() >= limit)) {
      socket_->add_verdict(id, NF_DROP);
      drops_.fetch_add(1, std::memory_order_relaxed);
      return;
    }
    if (fate.delay_ns == 0 && !in_order && !serializer.active()) {
      socket_->add_verdict(id, NF_ACCEPT);  // reordered (or no delay): out now
      return;
    }
    held.push(serializer.departure_ns(now_ns(), fate.delay_ns, length + kEthernetHeaderBytes,
                                      held.empty()),
              id);
  };

  // Accepts what is due (all of it when `until` is max). In order, the
  // released ids are exactly the lowest still queued, so one batch verdict
  // covers them; drops sent earlier in the same buffer are processed first.
  auto release = [&](int64_t until) {
    bool any = false;
    uint32_t max_id = 0;
    while (!held.empty() && held.next().release_ns <= until) {
      if (in_order) {
        max_id = held.next().id;
        any = true;
      } else {
        socket_->add_verdict(held.next().id, NF_ACCEPT);
      }
      held.pop();
    }
    if (any) socket_->add_batch_verdict(max_id, NF_ACCEPT);
  };

  pollfd fds[2] = {{socket_->fd(), POLLIN, 0}, {stop_fd_, POLLIN, 0}};
  try {
    for (;;) {
      int64_t now = now_ns();
      release(now);
      socket_->flush();
      backlog_.store(held.size(), std::memory_order_relaxed);

      timespec timeout{};
      timespec* wait = nullptr;  // nothing held: sleep until a packet or stop
      if (!held.empty()) {
        int64_t left = std::max<int64_t>(0, held.next().release_ns - now);
        timeout.tv_sec = left / 1000000000;
        timeout.tv_nsec = left % 1000000000;
        wait = &timeout;
      }
      int ready = ppoll(fds, 2, wait, nullptr);
      if (ready < 0) {
        if (errno == EINTR) continue;
        throw std::runtime_error(std::string("ppoll: ") + std::strerror(errno));
      }
      if (fds[1].revents != 0) break;
      if (fds[0].revents != 0) socket_->receive(on_packet);
    }
    // Stopping: the rules are gone, so what is queued now is all there is.
    socket_->receive(on_packet);
    release(INT64_MAX);
    socket_->flush();
  } catch (const std::exception& e) {
    // The socket closes with the worker; the kernel then drops what it still
    // holds for us. Nothing else can be done from this thread.
    spdlog::error("userspace impairment on NFQUEUE {}: {}; its held packets are lost",
                  socket_->queue_num(), e.what());
  }
  backlog_.store(held.size(), std::memory_order_relaxed);
}

}  // namespace fabriclab::netem::userspace
