// rtnetlink messages for qdiscs, built with libmnl.
//
// build_netem_qdisc() gives, byte for byte, what iproute2's tc (6.1) sends for
// `tc qdisc add|change|replace dev DEV [parent P | root] [handle H] netem
// WORDS`: nlmsghdr, tcmsg, TCA_KIND "netem", then TCA_OPTIONS whose payload is
// struct tc_netem_qopt followed by netem's own attributes (TCA_NETEM_CORR,
// _REORDER, _ECN, _CORRUPT, _SLOT, _LOSS (nested), _RATE64, _RATE,
// _DELAY_DIST, _SLOT_DIST, in that order). Note TCA_OPTIONS is NOT flagged
// NLA_F_NESTED (tc does not flag it and the kernel reads the qopt first).
// Only nlmsg_seq and nlmsg_pid differ from tc's (tc uses time(NULL) and 0).
// tests/netem/fixtures/ hold tc's bytes for many specs.
//
// A limit of 0 in the spec encodes tc's default, 1000 packets; the backend
// fills in a derived limit before calling this (see netem/spec_limit.h).
//
// Errors: std::runtime_error if a distribution table cannot be read.
// Thread-safe (pure apart from reading tables and /proc/net/psched).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "netem/spec.h"

struct nlmsghdr;

namespace fabriclab::netem::netlink {

using Message = std::vector<uint8_t>;

enum class QdiscCommand { kAdd, kChange, kReplace, kDelete };

// The tcmsg header fields: which device, where in the tree, which handle.
struct QdiscPlace {
  int ifindex = 0;
  uint32_t parent = 0xFFFFFFFFu;  // TC_H_ROOT
  uint32_t handle = 0;            // 0 = let the kernel choose (tc's default)
};

// Starts a qdisc message in `buf` (sized by the caller, zeroed): the
// nlmsghdr of `type`, `flags` and `seq`, then the tcmsg for `place`, as
// every tc qdisc command starts; attributes follow at the returned header.
nlmsghdr* put_qdisc_header(Message& buf, uint16_t type, uint16_t flags, uint32_t seq,
                           const QdiscPlace& place);

// tc's flags for each command (NLM_F_REQUEST|NLM_F_ACK plus EXCL|CREATE for
// add, nothing for change, CREATE|REPLACE for replace).
uint16_t qdisc_flags(QdiscCommand cmd);

Message build_netem_qdisc(QdiscCommand cmd, const QdiscPlace& place, const Spec& spec,
                          uint32_t seq);

// A change that leaves the qdisc holding exactly `spec`. tc's `change` (the
// kChange above) sends only the attributes its words name, and the kernel's
// netem_change() keeps every attribute it is not sent: `change ... delay
// 20ms` after `rate 1mbit corrupt 1%` leaves the rate and the corruption in
// force. A fault that changes a link's impairment and restores it would leave
// the fault's settings behind, so this sends correlation, reorder, ECN,
// corruption, slot and rate every time, zeroed when `spec` has none. The
// kernel cannot be sent "no delay distribution" (an empty table is refused):
// a distribution set earlier stays, and matters only with jitter.
Message build_netem_change(const QdiscPlace& place, const Spec& spec, uint32_t seq);

// RTM_DELQDISC for the qdisc at `place` (no kind, no options), like
// `tc qdisc del dev DEV [parent P | root] [handle H]`.
Message build_delete_qdisc(const QdiscPlace& place, uint32_t seq);

// RTM_GETQDISC dump request for all qdiscs (filtered by ifindex on read).
Message build_get_qdiscs(int ifindex, uint32_t seq);

// Handle text as tc writes it: "fab0:" / "fab0:2" / "root" / "none".
std::string format_handle(uint32_t handle);
// Parses "fab0:", "1:2", "root" (tc's get_tc_classid); throws InputError.
uint32_t parse_handle(const std::string& text);

}  // namespace fabriclab::netem::netlink
