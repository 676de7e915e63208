#include "netem/userspace/packet_scheduler.h"

#include "netem/spec_limit.h"

namespace fabriclab::netem::userspace {
namespace {

// NFQUEUE reports the IP packet's length; a qdisc on the Ethernet device
// (netem, tbf) counts the frame, its 14-byte header included. A rate is
// charged for the frame, as netem charges it.
constexpr uint32_t kEthernetHeaderBytes = 14;

// A rate builds a queue, so it gets netem's limit (the one the netem backend
// would send) when none is given.
size_t limit_for(const Spec& spec, const RateSerializer& serializer) {
  return spec.limit_packets ? spec.limit_packets
         : serializer.active() ? derive_limit_packets(spec)
                               : 0;
}

}  // namespace

PacketScheduler::PacketScheduler(const Spec& spec, uint64_t seed)
    : model_(spec, seed),
      serializer_(spec),
      in_order_(model_.keeps_order()),
      limit_(limit_for(spec, serializer_)) {}

void PacketScheduler::change(const Spec& spec, uint64_t seed) {
  model_ = ImpairmentModel(spec, seed);
  serializer_ = RateSerializer(spec);
  limit_ = limit_for(spec, serializer_);
  in_order_ = false;
  order_waits_for_old_ = true;
  old_packets_due_by_ns_ = held_.empty() ? 0 : held_.latest_release_ns();
}

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
  if (order_waits_for_old_ && until_ns >= old_packets_due_by_ns_) {
    order_waits_for_old_ = false;  // every packet held before the change is out
    in_order_ = model_.keeps_order();
  }
  return due_;
}

}  // namespace fabriclab::netem::userspace
