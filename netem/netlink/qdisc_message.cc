#include "netem/netlink/qdisc_message.h"

#include <libmnl/libmnl.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "common/input_error.h"
#include "netem/netlink/distribution_table.h"
#include "netem/psched.h"

namespace fabriclab::netem::netlink {

nlmsghdr* put_qdisc_header(Message& buf, uint16_t type, uint16_t flags, uint32_t seq,
                           const QdiscPlace& place) {
  nlmsghdr* nlh = mnl_nlmsg_put_header(buf.data());
  nlh->nlmsg_type = type;
  nlh->nlmsg_flags = flags;
  nlh->nlmsg_seq = seq;
  auto* tcm = static_cast<tcmsg*>(mnl_nlmsg_put_extra_header(nlh, sizeof(tcmsg)));
  tcm->tcm_family = AF_UNSPEC;
  tcm->tcm_ifindex = place.ifindex;
  tcm->tcm_handle = place.handle;
  tcm->tcm_parent = place.parent;
  return nlh;
}

namespace {

// Room for two 16 Ki-entry tables (the most tc allows) plus headers.
constexpr size_t kMaxMessage = 2 * 16 * 1024 * sizeof(int16_t) + 4096;

struct Builder {
  Message buf = Message(kMaxMessage, 0);
  nlmsghdr* nlh = nullptr;

  Builder(uint16_t type, uint16_t flags, uint32_t seq, const QdiscPlace& place)
      : nlh(put_qdisc_header(buf, type, flags, seq, place)) {}

  Message done() {
    buf.resize(nlh->nlmsg_len);
    return std::move(buf);
  }
};

// every_attribute: also send the attributes `s` leaves out, zeroed, so the
// kernel's netem_change() overwrites what an earlier spec set (see
// build_netem_change in the header).
void put_netem_options(nlmsghdr* nlh, const Spec& s, bool every_attribute = false) {
  tc_netem_qopt opt{};
  opt.limit = s.limit_packets ? s.limit_packets : 1000;  // tc's default
  opt.latency = usec_to_ticks(static_cast<uint32_t>(s.delay_us));
  opt.jitter = usec_to_ticks(static_cast<uint32_t>(s.jitter_us));
  opt.loss = s.loss_model == LossModel::kRandom ? scaled_probability(s.loss) : 0;
  opt.duplicate = scaled_probability(s.duplicate);
  opt.gap = s.reorder_gap;
  if (s.reorder > 0 && opt.gap == 0) opt.gap = 1;  // tc: reorder implies gap 1

  // TCA_OPTIONS carries the qopt and then netem's attributes; tc opens it as
  // a plain attribute and fixes its length at the end, so do we (libmnl's
  // nest_start would add NLA_F_NESTED, which tc does not send).
  auto* options = static_cast<nlattr*>(mnl_nlmsg_get_payload_tail(nlh));
  mnl_attr_put(nlh, TCA_OPTIONS, sizeof opt, &opt);

  // tc sends TCA_NETEM_CORR when a delay, loss, reorder or corrupt
  // correlation word was given. A duplicate correlation alone does not count
  // (tc/q_netem.c forgets to mark it present), so `duplicate 1% 50%` on its
  // own reaches the kernel without its correlation: same here, on purpose.
  if (s.corr_given || every_attribute) {
    tc_netem_corr corr{};
    corr.delay_corr = scaled_probability(s.delay_corr);
    corr.loss_corr = s.loss_model == LossModel::kRandom ? scaled_probability(s.loss_corr) : 0;
    corr.dup_corr = scaled_probability(s.duplicate_corr);
    mnl_attr_put(nlh, TCA_NETEM_CORR, sizeof corr, &corr);
  }
  if (s.reorder_given || s.reorder > 0 || every_attribute) {
    tc_netem_reorder r{};
    r.probability = scaled_probability(s.reorder);
    r.correlation = scaled_probability(s.reorder_corr);
    mnl_attr_put(nlh, TCA_NETEM_REORDER, sizeof r, &r);
  }
  if (s.ecn || every_attribute) {
    int on = s.ecn ? 1 : 0;  // tc sends its int "present" flag
    mnl_attr_put(nlh, TCA_NETEM_ECN, sizeof on, &on);
  }
  if (s.corrupt_given || s.corrupt > 0 || every_attribute) {
    tc_netem_corrupt c{};
    c.probability = scaled_probability(s.corrupt);
    c.correlation = scaled_probability(s.corrupt_corr);
    mnl_attr_put(nlh, TCA_NETEM_CORRUPT, sizeof c, &c);
  }
  if (s.slot.given || every_attribute) {
    tc_netem_slot sl{};  // all zero: no slots
    sl.min_delay = s.slot.min_delay_ns;
    sl.max_delay = s.slot.max_delay_ns;
    sl.max_packets = s.slot.max_packets;
    sl.max_bytes = s.slot.max_bytes;
    sl.dist_delay = s.slot.dist_delay_ns;
    sl.dist_jitter = s.slot.dist_jitter_ns;
    mnl_attr_put(nlh, TCA_NETEM_SLOT, sizeof sl, &sl);
  }
  if (s.loss_model == LossModel::kState) {
    const LossState& g = s.loss_state;
    tc_netem_gimodel gi{};
    gi.p13 = scaled_probability(g.p13);
    gi.p31 = scaled_probability(g.p31);
    gi.p32 = scaled_probability(g.p32);
    gi.p14 = scaled_probability(g.p14);
    gi.p23 = scaled_probability(g.p23);
    nlattr* nest = mnl_attr_nest_start(nlh, TCA_NETEM_LOSS);
    mnl_attr_put(nlh, NETEM_LOSS_GI, sizeof gi, &gi);
    mnl_attr_nest_end(nlh, nest);
  } else if (s.loss_model == LossModel::kGemodel) {
    const LossGemodel& g = s.loss_gemodel;
    tc_netem_gemodel ge{};
    ge.p = scaled_probability(g.p);
    ge.r = scaled_probability(g.r);
    ge.h = UINT32_MAX - scaled_probability(g.one_minus_h);  // tc: option is 1-h, kernel wants h
    ge.k1 = scaled_probability(g.one_minus_k);
    nlattr* nest = mnl_attr_nest_start(nlh, TCA_NETEM_LOSS);
    mnl_attr_put(nlh, NETEM_LOSS_GE, sizeof ge, &ge);
    mnl_attr_nest_end(nlh, nest);
  }
  if (s.rate_bytes_per_s != 0 || every_attribute) {  // a rate of 0: no rate
    tc_netem_rate rate{};
    if (s.rate_bytes_per_s >= (1ULL << 32)) {
      uint64_t rate64 = s.rate_bytes_per_s;
      mnl_attr_put(nlh, TCA_NETEM_RATE64, sizeof rate64, &rate64);
      rate.rate = ~0U;
    } else {
      rate.rate = static_cast<uint32_t>(s.rate_bytes_per_s);
    }
    rate.packet_overhead = s.rate_packet_overhead;
    rate.cell_size = s.rate_cell_size;
    rate.cell_overhead = s.rate_cell_overhead;
    mnl_attr_put(nlh, TCA_NETEM_RATE, sizeof rate, &rate);
  }
  if (s.distribution != Distribution::kNone && s.distribution != Distribution::kUniform) {
    std::vector<int16_t> table = load_distribution(s.distribution);
    mnl_attr_put(nlh, TCA_NETEM_DELAY_DIST, table.size() * sizeof(int16_t), table.data());
  }
  if (s.slot.given && s.slot.distribution != Distribution::kNone &&
      s.slot.distribution != Distribution::kUniform) {
    std::vector<int16_t> table = load_distribution(s.slot.distribution);
    mnl_attr_put(nlh, TCA_NETEM_SLOT_DIST, table.size() * sizeof(int16_t), table.data());
  }
  options->nla_len = static_cast<uint16_t>(static_cast<char*>(mnl_nlmsg_get_payload_tail(nlh)) -
                                           reinterpret_cast<char*>(options));
}

}  // namespace

uint16_t qdisc_flags(QdiscCommand cmd) {
  uint16_t f = NLM_F_REQUEST | NLM_F_ACK;
  switch (cmd) {
    case QdiscCommand::kAdd:
      return f | NLM_F_EXCL | NLM_F_CREATE;
    case QdiscCommand::kChange:
      return f;
    case QdiscCommand::kReplace:
      return f | NLM_F_CREATE | NLM_F_REPLACE;
    case QdiscCommand::kDelete:
      return f;
  }
  return f;
}

Message build_netem_qdisc(QdiscCommand cmd, const QdiscPlace& place, const Spec& spec,
                          uint32_t seq) {
  if (cmd == QdiscCommand::kDelete) return build_delete_qdisc(place, seq);
  Builder b(RTM_NEWQDISC, qdisc_flags(cmd), seq, place);
  mnl_attr_put_strz(b.nlh, TCA_KIND, "netem");
  put_netem_options(b.nlh, spec);
  return b.done();
}

Message build_netem_change(const QdiscPlace& place, const Spec& spec, uint32_t seq) {
  Builder b(RTM_NEWQDISC, qdisc_flags(QdiscCommand::kChange), seq, place);
  mnl_attr_put_strz(b.nlh, TCA_KIND, "netem");
  put_netem_options(b.nlh, spec, true);
  return b.done();
}

Message build_delete_qdisc(const QdiscPlace& place, uint32_t seq) {
  Builder b(RTM_DELQDISC, qdisc_flags(QdiscCommand::kDelete), seq, place);
  return b.done();
}

Message build_get_qdiscs(int ifindex, uint32_t seq) {
  QdiscPlace place;
  place.ifindex = ifindex;
  place.parent = 0;
  Builder b(RTM_GETQDISC, NLM_F_REQUEST | NLM_F_DUMP, seq, place);
  return b.done();
}

std::string format_handle(uint32_t h) {
  char buf[32];
  if (h == TC_H_ROOT) return "root";
  if (h == TC_H_UNSPEC) return "none";
  if (TC_H_MAJ(h) == 0) {
    std::snprintf(buf, sizeof buf, ":%x", TC_H_MIN(h));
  } else if (TC_H_MIN(h) == 0) {
    std::snprintf(buf, sizeof buf, "%x:", TC_H_MAJ(h) >> 16);
  } else {
    std::snprintf(buf, sizeof buf, "%x:%x", TC_H_MAJ(h) >> 16, TC_H_MIN(h));
  }
  return buf;
}

uint32_t parse_handle(const std::string& text) {
  if (text == "root") return TC_H_ROOT;
  if (text == "none") return TC_H_UNSPEC;
  const std::string expected = "'" + text +
                               "' is not a tc handle; expected MAJOR:[MINOR] in hex, "
                               "e.g. fab0: or 1:2, or root";
  const char* s = text.c_str();
  char* p = nullptr;
  unsigned long maj = std::strtoul(s, &p, 16);
  if (p == s) {
    maj = 0;
    if (*p != ':') throw InputError(expected);
  }
  if (*p != ':' || maj >= (1u << 16)) throw InputError(expected);
  uint32_t h = static_cast<uint32_t>(maj) << 16;
  const char* m = p + 1;
  if (*m) {
    unsigned long min = std::strtoul(m, &p, 16);
    if (*p || p == m || min >= (1u << 16)) throw InputError(expected);
    h |= static_cast<uint32_t>(min);
  }
  return h;
}

}  // namespace fabriclab::netem::netlink
