// What the queue worker decides for each queued packet, on times it is
// given: drop it, accept it at once, or hold it until a release time (the
// model's delay and jitter, then the rate); and which held packets are due
// by a time. No socket and no clock: the worker passes CLOCK_MONOTONIC
// readings, tests pass chosen times, so delay, jitter, limit and ordering are
// tested on the decisions (packet_scheduler_test.cc) instead of by timing
// pings on a shared CPU (doc/ci.md).
//
// Not thread-safe (one queue worker owns it). Times are ns.
#pragma once

#include <cstdint>
#include <vector>

#include "netem/impairment_model.h"
#include "netem/rate_serializer.h"
#include "netem/spec.h"
#include "netem/userspace/held_packets.h"

namespace fabriclab::netem::userspace {

class PacketScheduler {
 public:
  enum class Verdict { kDrop, kAccept, kHold };
  struct Decision {
    Verdict verdict = Verdict::kAccept;
    int64_t release_ns = 0;  // kHold: when it is due
  };

  // `seed` fixes the random model. The limit is spec.limit_packets, or with
  // a rate netem's derived one (netem/spec_limit.h); 0 = none of ours.
  PacketScheduler(const Spec& spec, uint64_t seed);

  // A packet of `length` bytes (the IP packet) read at `now_ns`.
  Decision arrive(uint32_t id, uint32_t length, int64_t now_ns);

  // Removes the held packets due by `until_ns` and returns their ids,
  // earliest release first (ties in arrival order). The buffer is reused by
  // the next call.
  const std::vector<uint32_t>& due(int64_t until_ns);

  // Decides by `spec` from now on (a change of impairment, as `tc qdisc
  // change` does it): the held packets keep their release times; the new
  // model starts from `seed`. Until the last packet held under the old spec
  // is due, packets may leave out of arrival order (a shorter delay
  // overtakes), so in_order() is false until then.
  void change(const Spec& spec, uint64_t seed);

  // Nothing can overtake (no jitter, no reorder): due() ids are then always
  // the lowest still queued, so one batch verdict covers them.
  bool in_order() const { return in_order_; }
  bool empty() const { return held_.empty(); }
  size_t held() const { return held_.size(); }
  int64_t next_release_ns() const { return held_.next().release_ns; }  // not empty()

 private:
  ImpairmentModel model_;
  RateSerializer serializer_;
  bool in_order_;
  size_t limit_;
  HeldPackets held_;
  // After a change: in_order_ waits until the packets held before it are due.
  bool order_waits_for_old_ = false;
  int64_t old_packets_due_by_ns_ = 0;
  std::vector<uint32_t> due_;
};

}  // namespace fabriclab::netem::userspace
