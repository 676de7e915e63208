#include "netem/userspace/userspace_backend.h"

#include <random>

#include "common/scoped_netns.h"
#include "netem/spec_parse.h"
#include "netem/impairment_model.h"
#include "netem/userspace/nfqueue_socket.h"
#include "netem/userspace/nft_queue_rules.h"
#include "netem/userspace/queue_worker.h"
#include "netem/userspace/userspace_leftovers.h"

namespace fabriclab::netem {

namespace {

using userspace::NfqueueSocket;
using userspace::NftQueueRules;
using userspace::QueueWorker;

class UserspaceApplied : public Applied {
 public:
  UserspaceApplied(const Target& target, const Spec& spec, uint64_t seed)
      : target_(target), spec_(spec) {
    NfqueueSocket::Options options;
    // Our own limit (netem's) is enforced by the worker on held packets; the
    // kernel's bound only has to stay out of its way.
    options.queue_maxlen = 65536 + spec.limit_packets;
    std::unique_ptr<NfqueueSocket> socket;
    {
      ScopedNetns in_ns =
          target.netns_fd >= 0 ? ScopedNetns(target.netns_fd) : ScopedNetns(target.netns);
      socket = std::make_unique<NfqueueSocket>(options);
    }
    // Listener first, rules second: no packet is ever diverted to a queue
    // nobody reads. On a throw below, members already built are destroyed.
    worker_ = std::make_unique<QueueWorker>(std::move(socket), spec, seed);
    rules_ = std::make_unique<NftQueueRules>(target, worker_->queue_num());
  }

  ~UserspaceApplied() override {
    rules_.reset();   // no new packets enter the queue
    worker_.reset();  // accept what is held, stop, unbind
  }

  Stats stats() const override {
    Stats s;
    userspace::WorkerCounters w = worker_->counters();
    userspace::KernelQueueCounters k = worker_->kernel_counters();
    s.packets = w.packets;
    s.bytes = w.bytes;
    // Kernel-side drops (queue full, socket buffer full) are losses the
    // student did not ask for: they are counted so they cannot hide.
    s.drops = w.drops + k.queue_dropped + k.user_dropped;
    s.overlimits = k.queue_dropped + k.user_dropped;
    s.backlog_packets = w.backlog_packets;
    return s;
  }

  // The worker's scheduler decides by `spec` from its next packet on; the
  // nft rules and the queue stay as they are.
  void change(const Spec& spec) override {
    ImpairmentModel::check_supported(spec);
    worker_->change(spec);
    spec_ = spec;
  }

  std::string describe() const override {
    std::string where =
        target_.netns.empty() ? target_.device : target_.netns + "/" + target_.device;
    const bool ingress = target_.direction == Direction::kIngress;
    std::string peers;
    for (const std::string& p : target_.peers)
      peers += (peers.empty() ? (ingress ? " from " : " to ") : ",") + p;
    return "userspace (NFQUEUE " + std::to_string(worker_->queue_num()) + ", nft table " +
           rules_->table_name() + ") on " + (ingress ? "arrival at " : "") + where + peers + ": " +
           print_spec(spec_);
  }

 private:
  Target target_;
  Spec spec_;
  std::unique_ptr<QueueWorker> worker_;
  std::unique_ptr<NftQueueRules> rules_;
};

class UserspaceBackend : public Backend {
 public:
  explicit UserspaceBackend(const BackendOptions& options) : options_(options) {}
  std::string name() const override { return "userspace"; }
  Direction link_direction() const override { return Direction::kIngress; }

  std::unique_ptr<Applied> apply(const Target& target, const Spec& spec) override {
    ImpairmentModel::check_supported(spec);
    uint64_t seed = options_.seed;
    if (seed == 0)
      seed = (static_cast<uint64_t>(std::random_device{}()) << 32) | std::random_device{}();
    return std::make_unique<UserspaceApplied>(target, spec, seed);
  }

  Leftovers remove_leftovers(const Target& target, bool dry_run) override {
    return userspace::remove_leftovers(target, dry_run);
  }

 private:
  BackendOptions options_;
};

}  // namespace

std::unique_ptr<Backend> make_userspace_backend(const BackendOptions& options) {
  return std::make_unique<UserspaceBackend>(options);
}

}  // namespace fabriclab::netem
