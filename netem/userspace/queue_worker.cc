#include "netem/userspace/queue_worker.h"

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
#include <chrono>
#include <cstring>
#include <ctime>
#include <stdexcept>
#include <vector>

#include "netem/userspace/packet_scheduler.h"

namespace fabriclab::netem::userspace {

namespace {

int64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

}  // namespace

QueueWorker::QueueWorker(std::unique_ptr<NfqueueSocket> socket, const Spec& spec, uint64_t seed)
    : socket_(std::move(socket)), seed_(seed) {
  stop_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  change_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (stop_fd_ < 0 || change_fd_ < 0) {
    const int error = errno;
    if (stop_fd_ >= 0) ::close(stop_fd_);
    if (change_fd_ >= 0) ::close(change_fd_);
    throw std::runtime_error(std::string("eventfd: ") + std::strerror(error));
  }
  thread_ = std::thread(&QueueWorker::run, this, spec, seed);
}

QueueWorker::~QueueWorker() {
  stop();
  ::close(stop_fd_);
  ::close(change_fd_);
}

void QueueWorker::change(const Spec& spec) {
  std::unique_lock<std::mutex> lock(change_mutex_);
  const uint64_t wanted = changes_taken_ + 1;
  pending_ = spec;
  uint64_t one = 1;
  (void)::write(change_fd_, &one, sizeof one);
  if (!change_taken_.wait_for(lock, std::chrono::seconds(2),
                              [&] { return changes_taken_ >= wanted; })) {
    pending_.reset();
    throw std::runtime_error("the userspace impairment on NFQUEUE " +
                             std::to_string(socket_->queue_num()) +
                             " did not take the change within 2 s (its thread has stopped)");
  }
}

// On the worker's thread: the spec change() left, if any.
void QueueWorker::take_change(PacketScheduler& scheduler) {
  uint64_t count = 0;
  (void)::read(change_fd_, &count, sizeof count);
  std::lock_guard<std::mutex> lock(change_mutex_);
  if (!pending_) return;
  // Each change draws from its own seed: reproducible when the first was.
  scheduler.change(*pending_, seed_ + 0x9e3779b97f4a7c15ull * (changes_taken_ + 1));
  pending_.reset();
  ++changes_taken_;
  change_taken_.notify_all();
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

  PacketScheduler scheduler(spec, seed);

  auto on_packet = [&](uint32_t id, uint32_t length) {
    packets_.fetch_add(1, std::memory_order_relaxed);
    bytes_.fetch_add(length, std::memory_order_relaxed);
    switch (scheduler.arrive(id, length, now_ns()).verdict) {
      case PacketScheduler::Verdict::kDrop:
        socket_->add_verdict(id, NF_DROP);
        drops_.fetch_add(1, std::memory_order_relaxed);
        break;
      case PacketScheduler::Verdict::kAccept:
        socket_->add_verdict(id, NF_ACCEPT);
        break;
      case PacketScheduler::Verdict::kHold:
        break;
    }
  };

  // Accepts what is due (all of it when `until` is max). In order, the
  // released ids are exactly the lowest still queued, so one batch verdict
  // covers them; drops sent earlier in the same buffer are processed first.
  auto release = [&](int64_t until) {
    const std::vector<uint32_t>& ids = scheduler.due(until);
    if (ids.empty()) return;
    if (scheduler.in_order()) {
      socket_->add_batch_verdict(ids.back(), NF_ACCEPT);
    } else {
      for (uint32_t id : ids) socket_->add_verdict(id, NF_ACCEPT);
    }
  };

  pollfd fds[3] = {{socket_->fd(), POLLIN, 0}, {stop_fd_, POLLIN, 0}, {change_fd_, POLLIN, 0}};
  try {
    for (;;) {
      int64_t now = now_ns();
      release(now);
      socket_->flush();
      backlog_.store(scheduler.held(), std::memory_order_relaxed);

      timespec timeout{};
      timespec* wait = nullptr;  // nothing held: sleep until a packet or stop
      if (!scheduler.empty()) {
        int64_t left = std::max<int64_t>(0, scheduler.next_release_ns() - now);
        timeout.tv_sec = left / 1000000000;
        timeout.tv_nsec = left % 1000000000;
        wait = &timeout;
      }
      int ready = ppoll(fds, 3, wait, nullptr);
      if (ready < 0) {
        if (errno == EINTR) continue;
        throw std::runtime_error(std::string("ppoll: ") + std::strerror(errno));
      }
      if (fds[1].revents != 0) break;
      if (fds[2].revents != 0) take_change(scheduler);
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
  backlog_.store(scheduler.held(), std::memory_order_relaxed);
}

}  // namespace fabriclab::netem::userspace
