#include "netem/netlink/message_dump.h"

#include <arpa/inet.h>
#include <libmnl/libmnl.h>
#include <linux/pkt_cls.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include <cstdio>
#include <cstring>
#include <sstream>

#include "common/netlink_attributes.h"
#include "netem/psched.h"

namespace fabriclab::netem::netlink {

namespace {

std::string type_name(uint16_t t) {
  switch (t) {
    case RTM_NEWQDISC:
      return "RTM_NEWQDISC";
    case RTM_DELQDISC:
      return "RTM_DELQDISC";
    case RTM_GETQDISC:
      return "RTM_GETQDISC";
    case RTM_NEWTCLASS:
      return "RTM_NEWTCLASS";
    case RTM_NEWTFILTER:
      return "RTM_NEWTFILTER";
    default:
      return std::to_string(t);
  }
}

// The same bits mean ROOT/MATCH on a GET and REPLACE/EXCL on a NEW.
std::string flag_names(uint16_t type, uint16_t f) {
  bool get = type == RTM_GETQDISC || type == RTM_GETTCLASS || type == RTM_GETTFILTER;
  std::string s;
  auto add = [&](uint16_t bit, const char* name) {
    if (f & bit) s += (s.empty() ? "" : "|") + std::string(name);
  };
  add(NLM_F_REQUEST, "REQUEST");
  add(NLM_F_ACK, "ACK");
  if (get) {
    add(NLM_F_ROOT, "ROOT");
    add(NLM_F_MATCH, "MATCH");
  } else {
    add(NLM_F_REPLACE, "REPLACE");
    add(NLM_F_EXCL, "EXCL");
    add(NLM_F_CREATE, "CREATE");
    add(NLM_F_APPEND, "APPEND");
  }
  return s.empty() ? "0" : s;
}

std::string percent(uint32_t scaled) {
  char b[64];
  std::snprintf(b, sizeof b, "%u (%.6g%%)", scaled, 100.0 * scaled / UINT32_MAX);
  return b;
}

std::string ticks(uint32_t t) {
  char b[64];
  double us = t / tick_in_usec();
  if (us >= 1000)
    std::snprintf(b, sizeof b, "%u ticks (%.6gms)", t, us / 1000);
  else
    std::snprintf(b, sizeof b, "%u ticks (%.6gus)", t, us);
  return b;
}

template <typename T>
bool get(const nlattr* a, T* out) {
  if (mnl_attr_get_payload_len(a) < sizeof(T)) return false;
  std::memcpy(out, mnl_attr_get_payload(a), sizeof(T));
  return true;
}

const char* netem_attr_name(uint16_t t) {
  static const char* names[] = {"TCA_NETEM_UNSPEC",  "TCA_NETEM_CORR",      "TCA_NETEM_DELAY_DIST",
                                "TCA_NETEM_REORDER", "TCA_NETEM_CORRUPT",   "TCA_NETEM_LOSS",
                                "TCA_NETEM_RATE",    "TCA_NETEM_ECN",       "TCA_NETEM_RATE64",
                                "TCA_NETEM_PAD",     "TCA_NETEM_LATENCY64", "TCA_NETEM_JITTER64",
                                "TCA_NETEM_SLOT",    "TCA_NETEM_SLOT_DIST"};
  return t < sizeof names / sizeof names[0] ? names[t] : "TCA_NETEM_?";
}

void head(std::ostream& o, int depth, const std::string& name, const nlattr* a) {
  o << std::string(2 * depth, ' ') << name << " (" << mnl_attr_get_type(a) << ")"
    << ((a->nla_type & NLA_F_NESTED) ? " nested" : "") << ", " << mnl_attr_get_payload_len(a)
    << " bytes";
}

void netem_attr(std::ostream& o, const nlattr* a, int d) {
  uint16_t t = mnl_attr_get_type(a);
  head(o, d, netem_attr_name(t), a);
  o << ": ";
  switch (t) {
    case TCA_NETEM_CORR: {
      tc_netem_corr c;
      if (get(a, &c))
        o << "delay_corr " << percent(c.delay_corr) << ", loss_corr " << percent(c.loss_corr)
          << ", dup_corr " << percent(c.dup_corr);
      break;
    }
    case TCA_NETEM_REORDER:
    case TCA_NETEM_CORRUPT: {
      tc_netem_reorder r;  // same layout as tc_netem_corrupt
      if (get(a, &r))
        o << "probability " << percent(r.probability) << ", correlation " << percent(r.correlation);
      break;
    }
    case TCA_NETEM_ECN: {
      uint32_t v = 0;
      if (get(a, &v)) o << v;
      break;
    }
    case TCA_NETEM_RATE: {
      tc_netem_rate r;
      if (get(a, &r))
        o << "rate " << r.rate << " bytes/s" << (r.rate == ~0U ? " (see RATE64)" : "")
          << ", packet_overhead " << r.packet_overhead << ", cell_size " << r.cell_size
          << ", cell_overhead " << r.cell_overhead;
      break;
    }
    case TCA_NETEM_RATE64: {
      uint64_t v = 0;
      if (get(a, &v)) o << v << " bytes/s";
      break;
    }
    case TCA_NETEM_SLOT: {
      tc_netem_slot s;
      if (get(a, &s))
        o << "min_delay " << s.min_delay << " ns, max_delay " << s.max_delay << " ns, max_packets "
          << s.max_packets << ", max_bytes " << s.max_bytes << ", dist_delay " << s.dist_delay
          << " ns, dist_jitter " << s.dist_jitter << " ns";
      break;
    }
    case TCA_NETEM_DELAY_DIST:
    case TCA_NETEM_SLOT_DIST: {
      size_t n = mnl_attr_get_payload_len(a) / 2;
      const auto* v = static_cast<const int16_t*>(mnl_attr_get_payload(a));
      o << n << " int16 values (the distribution table):";
      for (size_t i = 0; i < n && i < 8; ++i) o << " " << v[i];
      if (n > 8) o << " ...";
      break;
    }
    case TCA_NETEM_LOSS:
      o << "\n";
      for_each_nested(a, [&](const nlattr* in) {
        if (mnl_attr_get_type(in) == NETEM_LOSS_GI) {
          tc_netem_gimodel g;
          head(o, d + 1, "NETEM_LOSS_GI", in);
          if (get(in, &g))
            o << ": p13 " << percent(g.p13) << ", p31 " << percent(g.p31) << ", p32 "
              << percent(g.p32) << ", p14 " << percent(g.p14) << ", p23 " << percent(g.p23);
        } else if (mnl_attr_get_type(in) == NETEM_LOSS_GE) {
          tc_netem_gemodel g;
          head(o, d + 1, "NETEM_LOSS_GE", in);
          if (get(in, &g))
            o << ": p " << percent(g.p) << ", r " << percent(g.r) << ", h " << percent(g.h)
              << ", k1 " << percent(g.k1);
        } else {
          head(o, d + 1, "?", in);
        }
        o << "\n";
      });
      return;
    default:
      break;
  }
  o << "\n";
}

void netem_options(std::ostream& o, const nlattr* opts, int d) {
  size_t len = mnl_attr_get_payload_len(opts);
  const char* p = static_cast<const char*>(mnl_attr_get_payload(opts));
  if (len < sizeof(tc_netem_qopt)) return;
  tc_netem_qopt q;
  std::memcpy(&q, p, sizeof q);
  o << std::string(2 * d, ' ') << "tc_netem_qopt (" << sizeof q << " bytes): latency "
    << ticks(q.latency) << ", limit " << q.limit << " packets, loss " << percent(q.loss) << ", gap "
    << q.gap << ", duplicate " << percent(q.duplicate) << ", jitter " << ticks(q.jitter) << "\n";
  for_each_attr(p + sizeof q, len - sizeof q, [&](const nlattr* a) { netem_attr(o, a, d); });
}

void htb_options(std::ostream& o, const nlattr* opts, int d) {
  for_each_nested(opts, [&](const nlattr* a) {
    switch (mnl_attr_get_type(a)) {
      case TCA_HTB_INIT: {
        tc_htb_glob g;
        head(o, d, "TCA_HTB_INIT", a);
        if (get(a, &g))
          o << ": version " << g.version << ", rate2quantum " << g.rate2quantum << ", defcls "
            << std::hex << g.defcls << std::dec;
        break;
      }
      case TCA_HTB_PARMS: {
        tc_htb_opt h;
        head(o, d, "TCA_HTB_PARMS", a);
        if (get(a, &h))
          o << ": rate " << h.rate.rate << ", ceil " << h.ceil.rate << " bytes/s (~0: see 64), "
            << "buffer " << ticks(h.buffer) << ", cbuffer " << ticks(h.cbuffer) << ", quantum "
            << h.quantum;
        break;
      }
      case TCA_HTB_RATE64:
      case TCA_HTB_CEIL64: {
        uint64_t v = 0;
        head(o, d, mnl_attr_get_type(a) == TCA_HTB_RATE64 ? "TCA_HTB_RATE64" : "TCA_HTB_CEIL64", a);
        if (get(a, &v)) o << ": " << v << " bytes/s";
        break;
      }
      default:
        head(o, d, "TCA_HTB_?", a);
    }
    o << "\n";
  });
}

void tbf_options(std::ostream& o, const nlattr* opts, int d) {
  for_each_nested(opts, [&](const nlattr* a) {
    switch (mnl_attr_get_type(a)) {
      case TCA_TBF_PARMS: {
        tc_tbf_qopt q;
        head(o, d, "TCA_TBF_PARMS", a);
        if (get(a, &q))
          o << ": rate " << q.rate.rate << " bytes/s (~0: see 64), limit " << q.limit
            << " bytes, buffer " << ticks(q.buffer) << ", cell_log " << int(q.rate.cell_log);
        break;
      }
      case TCA_TBF_BURST: {
        uint32_t v = 0;
        head(o, d, "TCA_TBF_BURST", a);
        if (get(a, &v)) o << ": " << v << " bytes";
        break;
      }
      case TCA_TBF_RATE64: {
        uint64_t v = 0;
        head(o, d, "TCA_TBF_RATE64", a);
        if (get(a, &v)) o << ": " << v << " bytes/s";
        break;
      }
      case TCA_TBF_RTAB:
        head(o, d, "TCA_TBF_RTAB", a);
        o << ": 256 transmit times";
        break;
      default:
        head(o, d, "TCA_TBF_?", a);
    }
    o << "\n";
  });
}

void u32_options(std::ostream& o, const nlattr* opts, int d) {
  for_each_nested(opts, [&](const nlattr* a) {
    switch (mnl_attr_get_type(a)) {
      case TCA_U32_CLASSID: {
        uint32_t c = 0;
        head(o, d, "TCA_U32_CLASSID", a);
        if (get(a, &c)) o << ": " << format_handle(c);
        o << "\n";
        break;
      }
      case TCA_U32_SEL: {
        head(o, d, "TCA_U32_SEL", a);
        tc_u32_sel sel;
        if (!get(a, &sel)) {
          o << "\n";
          break;
        }
        o << ": flags " << int(sel.flags) << (sel.flags & TC_U32_TERMINAL ? " (terminal)" : "")
          << ", nkeys " << int(sel.nkeys) << "\n";
        // The keys follow the selector; show those the payload holds.
        const size_t room = (mnl_attr_get_payload_len(a) - sizeof sel) / sizeof(tc_u32_key);
        const auto* keys = reinterpret_cast<const tc_u32_key*>(
            static_cast<const char*>(mnl_attr_get_payload(a)) + sizeof sel);
        for (size_t i = 0; i < sel.nkeys && i < room; ++i) {
          tc_u32_key k;
          std::memcpy(&k, keys + i, sizeof k);
          char b[128];
          std::snprintf(b, sizeof b, "key: match %08x/%08x at offset %d", ntohl(k.val),
                        ntohl(k.mask), k.off);
          o << std::string(2 * (d + 1), ' ') << b << "\n";
        }
        break;
      }
      default:
        head(o, d, "TCA_U32_?", a);
        o << "\n";
    }
  });
}

}  // namespace

std::string describe_message(const Message& m) {
  std::ostringstream o;
  if (m.size() < sizeof(nlmsghdr) + sizeof(tcmsg)) return "(short message)\n";
  const auto* nlh = reinterpret_cast<const nlmsghdr*>(m.data());
  if (nlh->nlmsg_len < sizeof(nlmsghdr) + sizeof(tcmsg) || nlh->nlmsg_len > m.size())
    return "(malformed message: nlmsg_len " + std::to_string(nlh->nlmsg_len) + ", " +
           std::to_string(m.size()) + " bytes)\n";
  o << "nlmsghdr: len " << nlh->nlmsg_len << ", type " << type_name(nlh->nlmsg_type) << ", flags "
    << flag_names(nlh->nlmsg_type, nlh->nlmsg_flags) << ", seq " << nlh->nlmsg_seq << ", pid "
    << nlh->nlmsg_pid << "\n";
  const auto* t = static_cast<const tcmsg*>(mnl_nlmsg_get_payload(nlh));
  o << "tcmsg: family " << int(t->tcm_family) << ", ifindex " << t->tcm_ifindex << ", handle "
    << format_handle(t->tcm_handle) << ", parent " << format_handle(t->tcm_parent);
  if (nlh->nlmsg_type == RTM_NEWTFILTER)
    o << ", info: prio " << (t->tcm_info >> 16) << " protocol 0x" << std::hex
      << ntohs(static_cast<uint16_t>(t->tcm_info & 0xffff)) << std::dec;
  o << "\n";
  std::string kind;
  for_each_message_attr(nlh, sizeof(tcmsg), [&](const nlattr* a) {
    switch (mnl_attr_get_type(a)) {
      case TCA_KIND:
        kind = attr_string(a);
        head(o, 1, "TCA_KIND", a);
        o << ": \"" << kind << "\"\n";
        break;
      case TCA_OPTIONS:
        head(o, 1, "TCA_OPTIONS", a);
        o << "\n";
        if (kind == "netem")
          netem_options(o, a, 2);
        else if (kind == "htb")
          htb_options(o, a, 2);
        else if (kind == "u32")
          u32_options(o, a, 2);
        else if (kind == "tbf")
          tbf_options(o, a, 2);
        break;
      default:
        head(o, 1, "TCA_?", a);
        o << "\n";
    }
  });
  return o.str();
}

std::string hex_dump(const Message& m) {
  std::string out;
  char line[128];
  for (size_t off = 0; off < m.size(); off += 16) {
    int n = std::snprintf(line, sizeof line, "%04zx: ", off);
    std::string hex(line, static_cast<size_t>(n)), ascii;
    for (size_t i = off; i < off + 16; ++i) {
      if (i < m.size()) {
        std::snprintf(line, sizeof line, "%02x", m[i]);
        hex += line;
        ascii += (m[i] >= 0x20 && m[i] < 0x7f) ? static_cast<char>(m[i]) : '.';
      } else {
        hex += "  ";
      }
      if (i % 2 == 1) hex += ' ';
    }
    out += hex + " " + ascii + "\n";
  }
  return out;
}

}  // namespace fabriclab::netem::netlink
