// `rate` on a kernel without sch_netem: a token bucket filter (sch_tbf), the
// kernel's own shaper, in the message iproute2's tc sends for it.
//
// What fabriclab sends for netem's words `rate R [limit N]` is what
//   tc qdisc add dev DEV root handle fab0: tbf rate R burst B limit L
// sends, byte for byte (tests/netem/fixtures/tbf/ hold tc's bytes): nlmsghdr,
// tcmsg, TCA_KIND "tbf", TCA_OPTIONS (not flagged nested, as tc) holding
// TCA_TBF_PARMS (struct tc_tbf_qopt), TCA_TBF_BURST, TCA_TBF_RATE64 when R
// does not fit 32 bits, and TCA_TBF_RTAB (tc's 256-entry rate table).
// B and L are not netem words, so they are derived (tbf_for_rate()):
//   B (burst, bytes) = max(1 ms at R, 10 full-size frames of 1514 B):
//     enough that the bucket never holds back a lone full-size frame, and
//     that timer wake-ups on a busy machine do not cost rate;
//   L (queue, bytes) = N x 1514, N = the spec's limit or netem's default
//     1000 packets: the same queue, in packets of a full-size frame, that
//     netem would keep.
// tbf counts each packet's length as the device sees it (Ethernet header
// included), as netem's rate does: TCP goodput over `rate 1gbit` is about
// 1448/1514 of 1 Gbit/s at MTU 1500.
//
// Words tbf cannot take from netem's `rate` (packet overhead, cell size) are
// refused by tbf_for_rate() with an InputError, as is a spec with anything
// but rate and limit (that needs sch_netem or the userspace backend).
// Thread-safe (pure apart from reading /proc/net/psched once).
#pragma once

#include <cstdint>
#include <string>

#include "netem/netlink/qdisc_message.h"
#include "netem/spec.h"

namespace fabriclab::netem::netlink {

constexpr uint32_t kFullFrameBytes = 1514;  // MTU 1500 + Ethernet header
constexpr uint32_t kMinBurstFrames = 10;

struct TbfSettings {
  uint64_t rate_bytes_per_s = 0;
  uint32_t burst_bytes = 0;
  uint32_t limit_bytes = 0;
};

// True when `spec` holds a rate and nothing tbf cannot do (limit aside).
bool is_rate_only(const Spec& spec);

// The tbf that shapes like `spec`'s rate; InputError when !is_rate_only(spec)
// or its rate has an overhead or cell size.
TbfSettings tbf_for_rate(const Spec& spec);

// The tc words for `settings`: "rate 1000000000bit burst 125000 limit 1514000".
std::string tbf_words(const TbfSettings& settings);

Message build_tbf_qdisc(QdiscCommand cmd, const QdiscPlace& place, const TbfSettings& settings,
                        uint32_t seq);

}  // namespace fabriclab::netem::netlink
