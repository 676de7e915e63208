#include "netem/netlink/peer_filter.h"

#include <arpa/inet.h>
#include <libmnl/libmnl.h>
#include <linux/if_ether.h>
#include <linux/pkt_cls.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>

#include <cstring>

#include "common/input_error.h"
#include "netem/psched.h"

namespace fabriclab::netem::netlink {

namespace {

struct Msg {
  Message buf = Message(MNL_SOCKET_BUFFER_SIZE, 0);
  nlmsghdr* nlh;
  tcmsg* tcm;
  Msg(uint16_t type, uint16_t flags, uint32_t seq, int ifindex) {
    nlh = mnl_nlmsg_put_header(buf.data());
    nlh->nlmsg_type = type;
    nlh->nlmsg_flags = flags;
    nlh->nlmsg_seq = seq;
    tcm = static_cast<tcmsg*>(mnl_nlmsg_put_extra_header(nlh, sizeof(tcmsg)));
    tcm->tcm_family = AF_UNSPEC;
    tcm->tcm_ifindex = ifindex;
  }
  Message done() {
    buf.resize(nlh->nlmsg_len);
    return std::move(buf);
  }
};

constexpr uint16_t kCreate = NLM_F_REQUEST | NLM_F_ACK | NLM_F_EXCL | NLM_F_CREATE;

// tc_calc_xmittime(): ticks needed to send `bytes` at `rate`.
uint32_t xmit_ticks(uint64_t rate_bytes_per_s, uint32_t bytes) {
  double usec = 1e6 * static_cast<double>(bytes) / static_cast<double>(rate_bytes_per_s);
  return static_cast<uint32_t>(usec * tick_in_usec());
}

}  // namespace

PeerAddress parse_peer_address(const std::string& text) {
  PeerAddress p;
  p.text = text;
  std::string addr = text;
  size_t slash = addr.find('/');
  std::string prefix = slash == std::string::npos ? "" : addr.substr(slash + 1);
  addr = addr.substr(0, slash);
  if (inet_pton(AF_INET, addr.c_str(), p.bytes) == 1 && (prefix.empty() || prefix == "32")) {
    p.family = AF_INET;
  } else if (inet_pton(AF_INET6, addr.c_str(), p.bytes) == 1 &&
             (prefix.empty() || prefix == "128")) {
    p.family = AF_INET6;
  } else {
    throw InputError("peer '" + text +
                     "' is not an IPv4 or IPv6 host address; expected e.g. 10.0.0.2 or fd00::2");
  }
  return p;
}

Message build_htb_root(int ifindex, uint32_t seq) {
  Msg m(RTM_NEWQDISC, kCreate, seq, ifindex);
  m.tcm->tcm_handle = kRootHandle;
  m.tcm->tcm_parent = TC_H_ROOT;
  mnl_attr_put_strz(m.nlh, TCA_KIND, "htb");
  tc_htb_glob glob{};
  glob.version = 3;  // TC_HTB_PROTOVER
  glob.rate2quantum = 10;
  glob.defcls = TC_H_MIN(kDefaultClass);
  nlattr* opts = mnl_attr_nest_start(m.nlh, TCA_OPTIONS);
  mnl_attr_put(m.nlh, TCA_HTB_INIT, sizeof glob, &glob);
  mnl_attr_nest_end(m.nlh, opts);
  return m.done();
}

Message build_htb_class(int ifindex, uint32_t classid, uint32_t seq) {
  Msg m(RTM_NEWTCLASS, kCreate, seq, ifindex);
  m.tcm->tcm_handle = classid;
  m.tcm->tcm_parent = kRootHandle;
  mnl_attr_put_strz(m.nlh, TCA_KIND, "htb");
  tc_htb_opt opt{};
  // Rates above 2^32 bytes/s go in RATE64/CEIL64; the u32 field says "see 64".
  opt.rate.rate = opt.ceil.rate = ~0U;
  opt.rate.linklayer = opt.ceil.linklayer = TC_LINKLAYER_ETHERNET;  // no rate table needed
  opt.rate.cell_align = opt.ceil.cell_align = -1;
  opt.buffer = opt.cbuffer = xmit_ticks(kClassRateBytesPerS, kClassBurstBytes);
  opt.quantum = 200000;  // explicit, so the kernel does not warn about r2q
  nlattr* opts = mnl_attr_nest_start(m.nlh, TCA_OPTIONS);
  mnl_attr_put(m.nlh, TCA_HTB_PARMS, sizeof opt, &opt);
  mnl_attr_put_u64(m.nlh, TCA_HTB_RATE64, kClassRateBytesPerS);
  mnl_attr_put_u64(m.nlh, TCA_HTB_CEIL64, kClassRateBytesPerS);
  mnl_attr_nest_end(m.nlh, opts);
  return m.done();
}

Message build_u32_dst_filter(int ifindex, const PeerAddress& peer, uint32_t seq) {
  Msg m(RTM_NEWTFILTER, kCreate, seq, ifindex);
  bool v4 = peer.family == AF_INET;
  uint32_t prio = v4 ? 1 : 2;
  uint16_t protocol = htons(v4 ? ETH_P_IP : ETH_P_IPV6);
  m.tcm->tcm_parent = kRootHandle;
  m.tcm->tcm_info = TC_H_MAKE(prio << 16, protocol);
  mnl_attr_put_strz(m.nlh, TCA_KIND, "u32");

  // One 32-bit key per word of the destination address: IPv4's daddr sits at
  // byte 16 of the IP header, IPv6's at bytes 24..39.
  int nkeys = v4 ? 1 : 4;
  int first_offset = v4 ? 16 : 24;
  std::vector<uint8_t> sel_buf(sizeof(tc_u32_sel) + nkeys * sizeof(tc_u32_key), 0);
  auto* sel = reinterpret_cast<tc_u32_sel*>(sel_buf.data());
  sel->flags = TC_U32_TERMINAL;
  sel->nkeys = static_cast<unsigned char>(nkeys);
  for (int i = 0; i < nkeys; ++i) {
    tc_u32_key& k = sel->keys[i];
    k.mask = 0xffffffffu;
    std::memcpy(&k.val, peer.bytes + 4 * i, 4);
    k.off = first_offset + 4 * i;
  }
  nlattr* opts = mnl_attr_nest_start(m.nlh, TCA_OPTIONS);
  mnl_attr_put_u32(m.nlh, TCA_U32_CLASSID, kImpairedClass);
  mnl_attr_put(m.nlh, TCA_U32_SEL, sel_buf.size(), sel_buf.data());
  mnl_attr_nest_end(m.nlh, opts);
  return m.done();
}

Message build_plain_qdisc(const QdiscPlace& place, const std::string& kind, uint32_t seq) {
  Msg m(RTM_NEWQDISC, kCreate, seq, place.ifindex);
  m.tcm->tcm_handle = place.handle;
  m.tcm->tcm_parent = place.parent;
  mnl_attr_put_strz(m.nlh, TCA_KIND, kind.c_str());
  return m.done();
}

}  // namespace fabriclab::netem::netlink
