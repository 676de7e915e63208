// A switch made of the lab's bridge and this process: every packet the
// bridge forwards to a queued port's address waits in NFQUEUE while the
// SwitchModel (netem/queue/switch_model.h) decides when it has left the
// port, whether it is dropped, and whether it leaves with CE set; the worker
// thread gives the verdicts (NF_ACCEPT, NF_ACCEPT with kCeMark, NF_DROP).
// The kernel has no red, codel or PFC here; this is them, in userspace.
//
// The packet's own IPv4 header (its first 20 bytes, all the kernel copies)
// says where it came from (the ingress: the sender's address; any other
// source is one more ingress, "other") and whether it is ECN-capable. A
// port's wire time is charged for the IP length + 14 bytes of Ethernet.
//
// With a lossless port, every sender's traffic is held (a line-rate port for
// each address without a queue), so that a paused link blocks all it carries:
// head-of-line blocking. counters() reports the queued ports only.
//
// Lifetime: the constructor opens the queue and builds the rules
// (nft_switch_rules.h) in the switch's namespace, then starts the thread;
// stop() (or the destructor) deletes the rules first, then lets every held
// packet leave (the model drained at once) and joins.
// Thread safety: counters() from any thread; the rest from the owner.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "netem/queue/switch_model.h"
#include "netem/switch.h"

namespace fabriclab::netem::userspace {

class NfqueueSocket;
class NftSwitchRules;

class SwitchWorker : public Switch {
 public:
  // netns_fd: the switch's namespace (not owned; -1: the caller's).
  // senders: the addresses whose traffic enters the switch on links of their
  // own (the ranks'), in ingress order.
  SwitchWorker(int netns_fd, std::vector<SwitchPortSetting> ports, std::vector<std::string> senders,
               uint64_t seed);
  ~SwitchWorker() override;
  SwitchWorker(const SwitchWorker&) = delete;
  SwitchWorker& operator=(const SwitchWorker&) = delete;

  void stop();  // idempotent
  SwitchCounters counters() override;
  std::vector<uint64_t> take_window_max() override;
  std::vector<MarkingBucket> marking_trace(int port) override;
  std::string describe() const override;
  uint16_t queue_num() const;

 private:
  void run();

  std::vector<uint32_t> port_addresses_;    // network order, by port
  std::vector<uint32_t> sender_addresses_;  // network order, by ingress
  std::unique_ptr<NfqueueSocket> socket_;
  std::unique_ptr<NftSwitchRules> rules_;
  std::mutex model_mutex_;  // the worker's loop and counters()
  std::unique_ptr<SwitchModel> model_;
  int reported_ports_ = 0;  // the queued ports; line-rate ones (HOL) follow
  int stop_fd_ = -1;
  std::thread thread_;
  std::atomic<bool> stopped_{false};
};

}  // namespace fabriclab::netem::userspace
