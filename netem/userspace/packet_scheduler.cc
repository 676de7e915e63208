#include "netem/userspace/packet_scheduler.h"

#include "netem/spec_limit.h"

namespace fabriclab::netem::userspace {
namespace {

// NFQUEUE reports the IP packet's length; a qdisc on the Ethernet device
// (netem, tbf) counts the frame, its 14-byte header included. A rate is
// charged for the frame, as netem charges it.
constexpr uint32_t kEthernetHeaderBytes = 14;

}  // namespace

PacketScheduler::PacketScheduler(const Spec& spec, uint64_t seed)
    : model_(spec, seed),
      serializer_(spec),
      in_order_(model_.keeps_order()),
      // A rate builds a queue, so it gets netem's limit (the one the netem
      // backend would send) when none is given.
      limit_(spec.limit_packets    ? spec.limit_packets
             : serializer_.active() ? derive_limit_packets(spec)
                                    : 0) {}

PacketScheduler::Decision PacketScheduler::arrive(uint32_t id, uint32_t length, int64_t now_ns) {
  const PacketFate fate = model_.next();
  // netem checks its limit after the loss decision and before the delay.
  if (fate.drop || (limit_ != 0 && held_.size() >= limit_)) return {Verdict::kDrop, 0};
  if (fate.delay_ns == 0 && !in_order_ && !serializer_.active()) {
    return {Verdict::kAccept, 0};  // reordered (or no delay): out now
  }
  const int64_t release_ns = serializer_.departure_ns(
      now_ns, fate.delay_ns, length + kEthernetHeaderBytes, held_.empty());
  held_.push(release_ns, id);
  return {Verdict::kHold, release_ns};
}

const std::vector<uint32_t>& PacketScheduler::due(int64_t until_ns) {
  due_.clear();
  while (!held_.empty() && held_.next().release_ns <= until_ns) {
    due_.push_back(held_.next().id);
    held_.pop();
  }
  return due_;
}

}  // namespace fabriclab::netem::userspace
