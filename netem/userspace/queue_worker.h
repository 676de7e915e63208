// The thread that impairs one NFQUEUE: it reads each queued packet's id,
// asks its PacketScheduler (packet_scheduler.h: the model, the rate, the
// limit) for its fate, and answers NF_DROP at once or NF_ACCEPT when its
// release time comes.
//
// Loop (one thread, no locks on the packet path):
//   1. accept every held packet whose release time has passed;
//   2. send all verdicts gathered so far in one sendmsg;
//   3. sleep in ppoll() on the queue socket and a stop eventfd, at most until
//      the next release time (ns timeout; the thread's timer slack is 1 ns so
//      the kernel does not round wake-ups up by its default 50 us);
//   4. read every waiting packet (non-blocking) and decide its fate.
// When nothing can overtake (no jitter, no reorder) releases go out as one
// VERDICT_BATCH message ("accept everything up to id N").
//
// Lifetime: the constructor starts the thread; stop() (or the destructor)
// wakes it, reads what is still queued, ACCEPTS everything held -- packets in
// flight are delivered early rather than lost -- and joins. Call stop() only
// after the nftables rules are gone, or new packets may arrive meanwhile
// (they would then be dropped by the kernel when the socket closes).
//
// Thread safety: counters() may be called from any thread; the rest from the
// owner only. change() hands its spec to the thread under a mutex.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "netem/spec.h"
#include "netem/userspace/nfqueue_socket.h"

namespace fabriclab::netem::userspace {

struct WorkerCounters {
  uint64_t packets = 0;  // read from the queue
  uint64_t bytes = 0;
  uint64_t drops = 0;            // dropped by the model (loss) or the limit
  uint64_t backlog_packets = 0;  // held now
};

class PacketScheduler;

class QueueWorker {
 public:
  // Takes the bound socket. spec.limit_packets 0 = no limit of our own (the
  // kernel queue's maxlen still applies). `seed` fixes the random model.
  QueueWorker(std::unique_ptr<NfqueueSocket> socket, const Spec& spec, uint64_t seed);
  ~QueueWorker();
  QueueWorker(const QueueWorker&) = delete;
  QueueWorker& operator=(const QueueWorker&) = delete;

  void stop();  // idempotent
  // Has the thread decide by `spec` from its next packet on
  // (PacketScheduler::change) and returns once it does. Throws
  // std::runtime_error when the thread does not take it within 2 s (it
  // stopped on an error).
  void change(const Spec& spec);
  uint16_t queue_num() const { return socket_->queue_num(); }
  WorkerCounters counters() const;
  KernelQueueCounters kernel_counters() const { return socket_->kernel_counters(); }

 private:
  void run(Spec spec, uint64_t seed);
  void take_change(PacketScheduler& scheduler);

  std::unique_ptr<NfqueueSocket> socket_;
  int stop_fd_ = -1;    // eventfd
  int change_fd_ = -1;  // eventfd: a change is waiting in pending_
  uint64_t seed_;
  std::mutex change_mutex_;
  std::condition_variable change_taken_;
  std::optional<Spec> pending_;  // guarded by change_mutex_
  uint64_t changes_taken_ = 0;   // guarded by change_mutex_
  std::thread thread_;
  std::atomic<uint64_t> packets_{0}, bytes_{0}, drops_{0}, backlog_{0};
};

}  // namespace fabriclab::netem::userspace
