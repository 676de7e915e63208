// Pieces of the netlink backend that need no kernel: error wording, the
// derived limit, the dry-run decoder, reading netem options back, handles.
#include <gtest/gtest.h>
#include <libmnl/libmnl.h>
#include <linux/gen_stats.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include <sys/socket.h>

#include <algorithm>
#include <cerrno>

#include "common/input_error.h"
#include "netem/netlink/kernel_error.h"
#include "netem/spec_limit.h"
#include "netem/netlink/message_dump.h"
#include "netem/netlink/netem_options.h"
#include "netem/netlink/peer_filter.h"
#include "netem/netlink/qdisc_list.h"
#include "netem/netlink/qdisc_message.h"
#include "netem/spec_parse.h"

namespace fabriclab::netem::netlink {
namespace {

ErrorContext netem_ctx() {
  return {"add netem qdisc fab0: at root of veth0", "veth0", "lab0", "netem"};
}

TEST(KernelErrorWording, NoNetemInAllThreeWordings) {
  for (const KernelError& e : {KernelError("x", ENOENT, "Specified qdisc kind is unknown"),
                               KernelError("x", EINVAL, "Specified qdisc kind is unknown"),
                               KernelError("x", ENOENT, ""), KernelError("x", EOPNOTSUPP, "")}) {
    std::string m = explain(e, netem_ctx());
    SCOPED_TRACE(m);
    EXPECT_NE(m.find("this kernel has no sch_netem"), std::string::npos);
    EXPECT_NE(m.find("modprobe sch_netem"), std::string::npos);
    EXPECT_NE(m.find("apt install linux-modules-extra-$(uname -r)"), std::string::npos);
    EXPECT_NE(m.find("kernel-modules-extra"), std::string::npos);
    EXPECT_NE(m.find("on veth0 in network namespace lab0"), std::string::npos);
  }
}

TEST(KernelErrorWording, PermissionAndDevice) {
  std::string m = explain(KernelError("x", EPERM, ""), netem_ctx());
  EXPECT_NE(m.find("CAP_NET_ADMIN"), std::string::npos) << m;
  EXPECT_NE(m.find("unshare -U -r -n"), std::string::npos) << m;
  m = explain(KernelError("x", ENODEV, ""), netem_ctx());
  EXPECT_NE(m.find("no device veth0"), std::string::npos) << m;
  EXPECT_NE(m.find("ip -n lab0 link"), std::string::npos) << m;
  // An unrelated EINVAL is not mistaken for a missing module.
  m = explain(KernelError("x", EINVAL, "Invalid argument to netem"), netem_ctx());
  EXPECT_EQ(m.find("sch_netem"), std::string::npos) << m;
}

TEST(DerivedLimit, FollowsRateTimesDelay) {
  EXPECT_EQ(derive_limit_packets(parse_spec("loss 1%")), kMinLimitPackets);
  // 10 Gbit/s x 100 ms x 2 / 1500 B = 166,667 packets.
  EXPECT_EQ(derive_limit_packets(parse_spec("delay 100ms")), 166667u);
  // With a rate: 10 mbit/s = 1.25 MB/s; x (100+20) ms x 2 / 1500 = 200 -> floor 1000.
  EXPECT_EQ(derive_limit_packets(parse_spec("delay 100ms 20ms rate 10mbit")), 1000u);
  EXPECT_EQ(derive_limit_packets(parse_spec("delay 200s")), kMaxLimitPackets);
  EXPECT_EQ(with_limit(parse_spec("delay 100ms limit 50")).limit_packets, 50u);
}

TEST(NetemOptions, DecodeOfEncodeGivesTheSpecBack) {
  for (const char* text : {"delay 100ms 10ms 25% loss 1% 10% duplicate 2% corrupt 0.1% 5% "
                           "reorder 25% 50% gap 5 rate 100mbit 14 limit 5000",
                           "delay 20ms loss state 1% 30% 2% 40% 0.5% ecn limit 1000",
                           "loss gemodel 1% 10% 70% 0.1% limit 100",
                           "rate 40gbit 20 64 -3 limit 1000 slot 1ms 2ms packets 10 bytes 1500"}) {
    SCOPED_TRACE(text);
    Spec spec = parse_spec(text);
    Message m = build_netem_qdisc(QdiscCommand::kAdd, {1, TC_H_ROOT, kRootHandle}, spec, 1);
    // TCA_OPTIONS follows nlmsghdr(16) + tcmsg(20) + TCA_KIND(12).
    const uint8_t* opts = m.data() + 16 + 20 + 12;
    uint16_t len = static_cast<uint16_t>(opts[0] | opts[1] << 8);
    DecodedNetem d = decode_netem_options(opts + 4, len - 4);
    ASSERT_TRUE(d.valid);
    EXPECT_EQ(print_spec(d.spec), print_spec(spec));
  }
}

// The attribute types inside a message's TCA_OPTIONS, after the qopt.
std::vector<uint16_t> netem_attribute_types(const Message& m) {
  const uint8_t* opts = m.data() + 16 + 20 + 12;  // nlmsghdr, tcmsg, TCA_KIND "netem"
  const uint16_t len = static_cast<uint16_t>(opts[0] | opts[1] << 8);
  std::vector<uint16_t> types;
  size_t at = 4 + NLA_ALIGN(sizeof(tc_netem_qopt));
  while (at + 4 <= len) {
    const uint16_t attr_len = static_cast<uint16_t>(opts[at] | opts[at + 1] << 8);
    types.push_back(static_cast<uint16_t>(opts[at + 2] | opts[at + 3] << 8) & NLA_TYPE_MASK);
    at += NLA_ALIGN(attr_len);
  }
  return types;
}

// The kernel keeps every netem attribute a change does not send, so the
// change a link fault makes and undoes sends them all, zeroed where the spec
// has none; decoded, the message still says exactly the spec.
TEST(NetemChange, SendsEveryAttributeTheKernelWouldOtherwiseKeep) {
  const Spec plain = parse_spec("delay 20ms limit 1000");
  const Message change = build_netem_change({1, TC_H_ROOT, kRootHandle}, plain, 1);
  const std::vector<uint16_t> types = netem_attribute_types(change);
  for (uint16_t t : {TCA_NETEM_CORR, TCA_NETEM_REORDER, TCA_NETEM_ECN, TCA_NETEM_CORRUPT,
                     TCA_NETEM_SLOT, TCA_NETEM_RATE})
    EXPECT_NE(std::find(types.begin(), types.end(), t), types.end()) << "attribute " << t << " not sent";
  const uint8_t* opts = change.data() + 16 + 20 + 12;
  const uint16_t len = static_cast<uint16_t>(opts[0] | opts[1] << 8);
  DecodedNetem d = decode_netem_options(opts + 4, len - 4);
  ASSERT_TRUE(d.valid);
  EXPECT_EQ(d.spec.delay_us, plain.delay_us);
  EXPECT_EQ(d.spec.rate_bytes_per_s, 0u);
  EXPECT_EQ(d.spec.corrupt, 0.0);
  EXPECT_EQ(d.spec.reorder, 0.0);
  EXPECT_FALSE(d.spec.ecn);
  EXPECT_EQ(d.spec.slot.min_delay_ns + d.spec.slot.max_delay_ns + d.spec.slot.dist_jitter_ns, 0);
  // tc's own change (the CLI's --change, byte for byte) sends none of them.
  EXPECT_TRUE(netem_attribute_types(build_netem_qdisc(QdiscCommand::kChange, {1, TC_H_ROOT, kRootHandle},
                                                      plain, 1))
                  .empty());
  // A spec that names everything: the same options as tc's.
  const Spec full = parse_spec("delay 100ms 10ms 25% loss 1% 10% duplicate 2% corrupt 0.1% 5% "
                               "reorder 25% 50% gap 5 rate 100mbit 14 limit 5000 ecn slot 1ms 2ms");
  EXPECT_EQ(build_netem_change({1, TC_H_ROOT, kRootHandle}, full, 1),
            build_netem_qdisc(QdiscCommand::kChange, {1, TC_H_ROOT, kRootHandle}, full, 1));
}

// A dump message as the kernel sends it, with TCA_KIND `kind` written
// without its NUL and the padding after it not zero (what a reader that
// runs past the attribute would pick up), then TCA_STATS2 holding `stats`.
Message qdisc_dump_message(const std::string& kind, const std::vector<uint8_t>& stats) {
  Message buf(MNL_SOCKET_BUFFER_SIZE, 0);
  nlmsghdr* nlh = mnl_nlmsg_put_header(buf.data());
  nlh->nlmsg_type = RTM_NEWQDISC;
  auto* tcm = static_cast<tcmsg*>(mnl_nlmsg_put_extra_header(nlh, sizeof(tcmsg)));
  tcm->tcm_ifindex = 3;
  tcm->tcm_parent = TC_H_ROOT;
  nlattr* k = static_cast<nlattr*>(mnl_nlmsg_get_payload_tail(nlh));
  mnl_attr_put(nlh, TCA_KIND, kind.size(), kind.data());
  for (size_t i = sizeof(nlattr) + kind.size(); i < static_cast<size_t>(MNL_ALIGN(k->nla_len)); ++i)
    reinterpret_cast<char*>(k)[i] = 'X';
  nlattr* nest = mnl_attr_nest_start(nlh, TCA_STATS2);
  mnl_attr_put(nlh, TCA_STATS_PKT64, stats.size(), stats.data());
  mnl_attr_nest_end(nlh, nest);
  buf.resize(nlh->nlmsg_len);
  return buf;
}

// Found by tests/fuzz/fuzz_qdisc_dump (its corpus keeps the inputs).
TEST(QdiscDump, ReadsOnlyInsideTheMessageAndItsAttributes) {
  Message m = qdisc_dump_message("tbf", {7, 0, 0, 0, 0, 0, 0, 0});
  auto q = parse_qdisc(reinterpret_cast<const nlmsghdr*>(m.data()));
  ASSERT_TRUE(q.has_value());
  EXPECT_EQ(q->kind, "tbf");  // not "tbfX": the attribute ends where its length says
  EXPECT_EQ(q->ifindex, 3);
  EXPECT_EQ(q->stats.packets, 7u);

  // A 4-byte TCA_STATS_PKT64 is not read as 8.
  m = qdisc_dump_message("tbf", {7, 0, 0, 0});
  q = parse_qdisc(reinterpret_cast<const nlmsghdr*>(m.data()));
  ASSERT_TRUE(q.has_value());
  EXPECT_EQ(q->stats.packets, 0u);

  // A message too short for its tcmsg is no qdisc.
  Message short_message(sizeof(nlmsghdr) + 8, 0);
  auto* nlh = reinterpret_cast<nlmsghdr*>(short_message.data());
  nlh->nlmsg_len = static_cast<uint32_t>(short_message.size());
  nlh->nlmsg_type = RTM_NEWQDISC;
  EXPECT_FALSE(parse_qdisc(nlh).has_value());

  // --dry-run's decoder: the same kind, and a length past the bytes refused.
  m = qdisc_dump_message("tbf", {7, 0, 0, 0, 0, 0, 0, 0});
  EXPECT_NE(describe_message(m).find("TCA_KIND (1), 3 bytes: \"tbf\"\n"), std::string::npos)
      << describe_message(m);
  reinterpret_cast<nlmsghdr*>(m.data())->nlmsg_len = static_cast<uint32_t>(m.size() + 64);
  EXPECT_EQ(describe_message(m).rfind("(malformed message: nlmsg_len", 0), 0u)
      << describe_message(m);
}

TEST(MessageDump, NamesTheFieldsAndShowsTheBytes) {
  Message m = build_netem_qdisc(QdiscCommand::kAdd, {2, TC_H_ROOT, kRootHandle},
                                parse_spec("delay 100ms 10ms 25% loss 1% limit 1000"), 9);
  std::string text = describe_message(m);
  EXPECT_NE(text.find("RTM_NEWQDISC"), std::string::npos) << text;
  EXPECT_NE(text.find("REQUEST|ACK|EXCL|CREATE"), std::string::npos) << text;
  EXPECT_NE(text.find("handle fab0:, parent root"), std::string::npos) << text;
  EXPECT_NE(text.find("TCA_KIND (1), 6 bytes: \"netem\""), std::string::npos) << text;
  EXPECT_NE(text.find("latency 1562500 ticks (100ms)"), std::string::npos) << text;
  EXPECT_NE(text.find("loss 42949673 (1%)"), std::string::npos) << text;
  EXPECT_NE(text.find("TCA_NETEM_CORR (1), 12 bytes: delay_corr 1073741824 (25%)"),
            std::string::npos)
      << text;
  std::string hex = hex_dump(m);
  EXPECT_EQ(hex.rfind("0000: ", 0), 0u) << hex;
  EXPECT_NE(hex.find("netem"), std::string::npos) << hex;

  Message f = build_u32_dst_filter(2, parse_peer_address("10.0.0.2"), 1);
  text = describe_message(f);
  EXPECT_NE(text.find("key: match 0a000002/ffffffff at offset 16"), std::string::npos) << text;
  EXPECT_NE(text.find("TCA_U32_CLASSID (1), 4 bytes: fab0:2"), std::string::npos) << text;
}

TEST(Handles, ParseAndFormatLikeTc) {
  EXPECT_EQ(parse_handle("fab0:"), 0xfab00000u);
  EXPECT_EQ(parse_handle("1:10"), 0x00010010u);
  EXPECT_EQ(parse_handle("root"), TC_H_ROOT);
  EXPECT_EQ(format_handle(0xfab00002u), "fab0:2");
  EXPECT_EQ(format_handle(TC_H_ROOT), "root");
  EXPECT_THROW(parse_handle("banana"), InputError);
  EXPECT_THROW(parse_handle("10000:"), InputError);
}

TEST(PeerAddress, AcceptsHostsRejectsTheRest) {
  EXPECT_EQ(parse_peer_address("10.0.0.2").family, AF_INET);
  EXPECT_EQ(parse_peer_address("10.0.0.2/32").family, AF_INET);
  EXPECT_EQ(parse_peer_address("fd00::2").family, AF_INET6);
  EXPECT_THROW(parse_peer_address("10.0.0.0/24"), InputError);
  EXPECT_THROW(parse_peer_address("peer.example"), InputError);
}

}  // namespace
}  // namespace fabriclab::netem::netlink
