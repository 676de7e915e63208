// Messages for the peer filter: impair only traffic towards given addresses
// (the VM-pair mode, where SSH and everything else must stay untouched).
//
// The tree on DEV, all under fabriclab's reserved handle major 0xfab0:
//
//   root  htb fab0:  default 1                    (RTM_NEWQDISC)
//     class fab0:1  unimpaired, the default        (RTM_NEWTCLASS)
//     class fab0:2  impaired                       (RTM_NEWTCLASS)
//       leaf qdisc fab2: netem SPEC                (build_netem_qdisc)
//   filter u32 at fab0: prio 1 protocol ip:   match ip dst A/32 -> fab0:2
//   filter u32 at fab0: prio 2 protocol ipv6: match ip6 dst A/128 -> fab0:2
//
// Both classes run at kClassRate (100 Gbit/s, with 1 MiB bursts) so htb never
// shapes lab traffic: it only sorts packets. Deleting the root qdisc removes
// the whole tree, filters included.
//
// Thread-safe (pure). Errors: InputError for an address that is not IPv4/IPv6.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "netem/netlink/qdisc_message.h"

namespace fabriclab::netem::netlink {

// fabriclab's reserved handles: never used by default qdiscs (handle 0 or
// kernel-chosen 8000-range majors), easy to spot in `tc qdisc show`.
constexpr uint32_t kRootHandle = 0xfab00000u;             // fab0:  root (netem or htb)
constexpr uint32_t kDefaultClass = 0xfab00001u;           // fab0:1 unimpaired
constexpr uint32_t kImpairedClass = 0xfab00002u;          // fab0:2 impaired
constexpr uint32_t kLeafHandle = 0xfab20000u;             // fab2:  netem under fab0:2
constexpr uint64_t kClassRateBytesPerS = 12500000000ULL;  // 100 Gbit/s
constexpr uint32_t kClassBurstBytes = 1u << 20;

struct PeerAddress {
  int family = 0;  // AF_INET or AF_INET6
  uint8_t bytes[16] = {};
  std::string text;
};

// "10.0.0.2", "fd00::2" (an optional /32 or /128 is accepted); InputError otherwise.
PeerAddress parse_peer_address(const std::string& text);

// `tc qdisc add dev D root handle fab0: htb default 1`
Message build_htb_root(int ifindex, uint32_t seq);
// `tc class add dev D parent fab0: classid C htb rate 100gbit burst 1m`
Message build_htb_class(int ifindex, uint32_t classid, uint32_t seq);
// `tc filter add dev D parent fab0: protocol ip|ipv6 prio 1|2 u32 match ip|ip6 dst A flowid fab0:2`
Message build_u32_dst_filter(int ifindex, const PeerAddress& peer, uint32_t seq);
// A qdisc without options (e.g. "pfifo") at `place`: tests use it as a leaf
// where the kernel has no sch_netem.
Message build_plain_qdisc(const QdiscPlace& place, const std::string& kind, uint32_t seq);

}  // namespace fabriclab::netem::netlink
