#include "netem/netlink/netem_options.h"

#include <libmnl/libmnl.h>
#include <linux/pkt_sched.h>

#include <cmath>
#include <cstring>

#include "common/netlink_attributes.h"
#include "netem/psched.h"

namespace fabriclab::netem::netlink {

namespace {

// The kernel keeps times in ticks or ns: `delay 1.5ms` sent by tc (or us) in
// ticks comes back as 1499968 ns. Rounded, it reads as what was asked.
uint64_t ns_to_us(int64_t ns) { return ns <= 0 ? 0 : static_cast<uint64_t>((ns + 500) / 1000); }

double fraction(uint32_t scaled) { return static_cast<double>(scaled) / UINT32_MAX; }

uint64_t ticks_to_us(uint32_t ticks) {
  return static_cast<uint64_t>(std::llround(ticks / tick_in_usec()));
}

template <typename T>
bool read(const nlattr* a, T* out) {
  if (mnl_attr_get_payload_len(a) < sizeof(T)) return false;
  std::memcpy(out, mnl_attr_get_payload(a), sizeof(T));
  return true;
}

}  // namespace

DecodedNetem decode_netem_options(const void* payload, size_t length) {
  DecodedNetem d;
  if (length < sizeof(tc_netem_qopt)) return d;
  d.valid = true;
  Spec& s = d.spec;
  tc_netem_qopt q;
  std::memcpy(&q, payload, sizeof q);
  s.limit_packets = q.limit;
  s.delay_us = ticks_to_us(q.latency);
  s.jitter_us = ticks_to_us(q.jitter);
  s.loss = fraction(q.loss);
  s.duplicate = fraction(q.duplicate);
  s.reorder_gap = q.gap;

  const char* p = static_cast<const char*>(payload) + sizeof q;
  const char* end = static_cast<const char*>(payload) + length;
  while (p + sizeof(nlattr) <= end) {
    const auto* a = reinterpret_cast<const nlattr*>(p);
    if (a->nla_len < sizeof(nlattr) || p + a->nla_len > end) break;
    switch (mnl_attr_get_type(a)) {
      case TCA_NETEM_CORR: {
        tc_netem_corr c;
        if (read(a, &c)) {
          s.corr_given = true;
          s.delay_corr = fraction(c.delay_corr);
          s.loss_corr = fraction(c.loss_corr);
          s.duplicate_corr = fraction(c.dup_corr);
        }
        break;
      }
      case TCA_NETEM_REORDER: {
        tc_netem_reorder r;
        if (read(a, &r)) {
          s.reorder_given = true;
          s.reorder = fraction(r.probability);
          s.reorder_corr = fraction(r.correlation);
        }
        break;
      }
      case TCA_NETEM_CORRUPT: {
        tc_netem_corrupt c;
        if (read(a, &c)) {
          s.corrupt_given = true;
          s.corrupt = fraction(c.probability);
          s.corrupt_corr = fraction(c.correlation);
        }
        break;
      }
      case TCA_NETEM_ECN: {
        uint32_t v = 0;
        if (read(a, &v)) s.ecn = v != 0;
        break;
      }
      case TCA_NETEM_RATE: {
        tc_netem_rate r;
        if (read(a, &r)) {
          if (s.rate_bytes_per_s == 0) s.rate_bytes_per_s = r.rate;
          s.rate_packet_overhead = r.packet_overhead;
          s.rate_cell_size = r.cell_size;
          s.rate_cell_overhead = r.cell_overhead;
        }
        break;
      }
      case TCA_NETEM_RATE64: {
        uint64_t v = 0;
        if (read(a, &v)) s.rate_bytes_per_s = v;
        break;
      }
      case TCA_NETEM_LATENCY64: {
        int64_t ns = 0;
        if (read(a, &ns)) s.delay_us = ns_to_us(ns);
        break;
      }
      case TCA_NETEM_JITTER64: {
        int64_t ns = 0;
        if (read(a, &ns)) s.jitter_us = ns_to_us(ns);
        break;
      }
      case TCA_NETEM_SLOT: {
        tc_netem_slot sl;
        if (read(a, &sl)) {
          s.slot.given = true;
          s.slot.min_delay_ns = sl.min_delay;
          s.slot.max_delay_ns = sl.max_delay;
          s.slot.max_packets = sl.max_packets;
          s.slot.max_bytes = sl.max_bytes;
          s.slot.dist_delay_ns = sl.dist_delay;
          s.slot.dist_jitter_ns = sl.dist_jitter;
        }
        break;
      }
      case TCA_NETEM_LOSS: {
        for_each_nested(a, [&](const nlattr* inner) {
          if (mnl_attr_get_type(inner) == NETEM_LOSS_GI) {
            tc_netem_gimodel g;
            if (read(inner, &g)) {
              s.loss_model = LossModel::kState;
              s.loss_state = {fraction(g.p13), fraction(g.p31), fraction(g.p32), fraction(g.p23),
                              fraction(g.p14)};
            }
          } else if (mnl_attr_get_type(inner) == NETEM_LOSS_GE) {
            tc_netem_gemodel g;
            if (read(inner, &g)) {
              s.loss_model = LossModel::kGemodel;
              s.loss_gemodel = {fraction(g.p), fraction(g.r), fraction(UINT32_MAX - g.h),
                                fraction(g.k1)};
            }
          }
        });
        break;
      }
      case TCA_NETEM_DELAY_DIST:
        d.delay_table_entries = mnl_attr_get_payload_len(a) / sizeof(int16_t);
        break;
      case TCA_NETEM_SLOT_DIST:
        d.slot_table_entries = mnl_attr_get_payload_len(a) / sizeof(int16_t);
        break;
      default:
        break;
    }
    p += MNL_ALIGN(a->nla_len);
  }
  // tc sends gap 1 for a bare reorder; show the spec the way it was written.
  if (s.reorder > 0 && s.reorder_gap == 1) s.reorder_gap = 0;
  return d;
}

}  // namespace fabriclab::netem::netlink
