// One NFQUEUE listener: a NETLINK_NETFILTER socket (libmnl) bound to one queue
// number in one network namespace, through which the kernel hands us packets
// (metadata only) and we hand back verdicts (libnetfilter_queue's mnl helpers).
//
// Configuration and why:
//   - copy mode PACKET with a range of 1 byte: we decide from a random model,
//     never from the bytes, so the kernel copies (almost) no payload -- a
//     message is ~100 bytes whatever the MTU -- yet reports the length; the
//     switch (switch_worker.h) asks for 20, the IPv4 header it decides by;
//   - NFQA_CFG_F_GSO: GSO super-packets (up to 64 KB of TCP) are queued whole,
//     one message and one verdict each, instead of being segmented first --
//     this is what keeps TCP throughput close to the bare link's;
//   - NFQA_CFG_F_FAIL_OPEN off: when the queue is full the kernel DROPS the
//     packet (like netem's `limit`) instead of letting it through unimpaired,
//     which would silently falsify the experiment. Such drops are counted by
//     the kernel and read back in kernel_counters();
//   - queue maxlen and a large receive buffer (SO_RCVBUFFORCE) so a burst
//     of held packets does not hit either limit in normal use.
//
// Lifetime: the constructor binds the first free queue number at or above
// `first_queue` (EBUSY: another listener has it); the destructor unbinds it,
// and the kernel then drops any packet still waiting for a verdict -- so the
// owner must accept everything it holds before destroying this object.
//
// Thread safety: none; one thread uses it after construction (the socket is
// tied to the namespace it was opened in, whatever thread uses it later).
// Errors: std::runtime_error naming the queue and errno.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "netem/userspace/queued_packet.h"

struct mnl_socket;

namespace fabriclab::netem::userspace {

// The kernel's own counters for this queue (/proc/net/netfilter/nfnetlink_queue).
struct KernelQueueCounters {
  uint64_t queue_total = 0;    // packets waiting for a verdict right now
  uint64_t queue_dropped = 0;  // dropped because the queue was full
  uint64_t user_dropped = 0;   // dropped because our socket buffer was full
};

class NfqueueSocket {
 public:
  struct Options {
    uint16_t first_queue = 16000;  // fabriclab's range; tried upwards
    uint16_t queues_to_try = 256;
    uint32_t queue_maxlen = 65536;        // packets waiting for a verdict
    int receive_buffer_bytes = 32 << 20;  // kernel-to-us messages not yet read
    // Bytes of each packet copied to us: 1 when only the length matters (the
    // smallest copy that still reports it), 20 to read the IPv4 header.
    uint32_t copy_bytes = 1;
  };

  // Opens and binds in the calling thread's current network namespace.
  explicit NfqueueSocket(const Options& options);
  ~NfqueueSocket();
  NfqueueSocket(const NfqueueSocket&) = delete;
  NfqueueSocket& operator=(const NfqueueSocket&) = delete;

  uint16_t queue_num() const { return queue_num_; }
  int fd() const;

  // Reads every message already waiting, without blocking, and calls
  // on_packet(packet_id, length_bytes) for each queued packet. Returns the
  // number of packets read.
  size_t receive(const std::function<void(uint32_t, uint32_t)>& on_packet);
  // The same, with each packet's first bytes.
  size_t receive(const std::function<void(const QueuedPacket&)>& on_packet);

  // Appends a verdict (NF_ACCEPT / NF_DROP) for one packet, or for every packet
  // with id <= max_id still waiting (one VERDICT_BATCH message). Sent by flush()
  // or when the buffer fills.
  void add_verdict(uint32_t packet_id, uint32_t verdict);
  // A verdict that also sets the packet's mark (skb->mark), which later
  // nftables rules can match.
  void add_verdict_with_mark(uint32_t packet_id, uint32_t verdict, uint32_t mark);
  void add_batch_verdict(uint32_t max_id, uint32_t verdict);
  void flush();

  KernelQueueCounters kernel_counters() const;

 private:
  bool queue_in_use(uint16_t queue) const;  // bound by any socket in this netns
  std::optional<KernelQueueCounters> read_counters(uint16_t queue) const;
  void request(char* buf);  // sends one config message, waits for its ack
  void append(uint16_t type, uint32_t id, uint32_t verdict, const uint32_t* mark = nullptr);

  mnl_socket* socket_ = nullptr;
  uint32_t portid_ = 0;
  uint32_t seq_ = 0;  // of config requests
  uint16_t queue_num_ = 0;
  int proc_fd_ = -1;  // /proc/thread-self/net/netfilter/nfnetlink_queue, in our netns
  std::vector<char> send_buf_;
  size_t send_len_ = 0;
  std::vector<char> recv_buf_;
};

}  // namespace fabriclab::netem::userspace
