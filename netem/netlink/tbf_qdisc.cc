#include "netem/netlink/tbf_qdisc.h"

#include <libmnl/libmnl.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstring>

#include "common/input_error.h"
#include "netem/psched.h"

namespace fabriclab::netem::netlink {
namespace {

// tc's tc_calc_xmittime(): microseconds to send `size` bytes at `rate`,
// truncated, then in scheduler ticks.
uint32_t xmit_ticks(uint64_t rate, uint32_t size) {
  const double usec = 1000000.0 * (static_cast<double>(size) / static_cast<double>(rate));
  return usec_to_ticks(static_cast<uint32_t>(usec));
}

// tc's tc_calc_rtable() for an Ethernet link with no mtu/mpu/overhead given:
// mtu 2047, so cell_log 3 (256 cells of 8 bytes), computed from the 32-bit
// rate the qopt carries.
void fill_rate_table(tc_ratespec& rate, uint32_t* rtab) {
  int cell_log = 0;
  while ((2047u >> cell_log) > 255) ++cell_log;
  for (uint32_t i = 0; i < 256; ++i) rtab[i] = xmit_ticks(rate.rate, (i + 1) << cell_log);
  rate.cell_align = -1;
  rate.cell_log = static_cast<unsigned char>(cell_log);
  rate.linklayer = TC_LINKLAYER_ETHERNET;
}

}  // namespace

bool is_rate_only(const Spec& s) {
  Spec rate_and_limit;
  rate_and_limit.rate_bytes_per_s = s.rate_bytes_per_s;
  rate_and_limit.rate_packet_overhead = s.rate_packet_overhead;
  rate_and_limit.rate_cell_size = s.rate_cell_size;
  rate_and_limit.rate_cell_overhead = s.rate_cell_overhead;
  rate_and_limit.limit_packets = s.limit_packets;
  return s.rate_bytes_per_s > 0 && s == rate_and_limit;
}

TbfSettings tbf_for_rate(const Spec& spec) {
  if (!is_rate_only(spec))
    throw InputError(
        "only `rate` (and `limit`) can go on a token bucket filter; the other words need "
        "sch_netem (--backend netem on a kernel that has it) or --backend userspace");
  if (spec.rate_packet_overhead != 0 || spec.rate_cell_size != 0 || spec.rate_cell_overhead != 0)
    throw InputError(
        "rate's packet overhead and cell size need sch_netem; a token bucket filter takes only "
        "`rate RATE` (and `limit`)");
  TbfSettings t;
  t.rate_bytes_per_s = spec.rate_bytes_per_s;
  const uint64_t one_ms = spec.rate_bytes_per_s / 1000;
  const uint64_t burst = std::max<uint64_t>(one_ms, uint64_t{kMinBurstFrames} * kFullFrameBytes);
  t.burst_bytes = static_cast<uint32_t>(std::min<uint64_t>(burst, UINT32_MAX / 2));
  const uint64_t packets = spec.limit_packets ? spec.limit_packets : 1000;  // netem's default
  t.limit_bytes = static_cast<uint32_t>(std::min<uint64_t>(packets * kFullFrameBytes, UINT32_MAX));
  return t;
}

std::string tbf_words(const TbfSettings& t) {
  return "rate " + std::to_string(t.rate_bytes_per_s * 8) + "bit burst " +
         std::to_string(t.burst_bytes) + " limit " + std::to_string(t.limit_bytes);
}

Message build_tbf_qdisc(QdiscCommand cmd, const QdiscPlace& place, const TbfSettings& t,
                        uint32_t seq) {
  Message buf(MNL_SOCKET_BUFFER_SIZE, 0);
  nlmsghdr* nlh = put_qdisc_header(buf, cmd == QdiscCommand::kDelete ? RTM_DELQDISC : RTM_NEWQDISC,
                                   qdisc_flags(cmd), seq, place);
  mnl_attr_put_strz(nlh, TCA_KIND, "tbf");

  tc_tbf_qopt opt{};
  opt.rate.rate =
      t.rate_bytes_per_s >= (uint64_t{1} << 32) ? ~0u : static_cast<uint32_t>(t.rate_bytes_per_s);
  opt.limit = t.limit_bytes;
  uint32_t rtab[256];
  fill_rate_table(opt.rate, rtab);
  opt.buffer = xmit_ticks(opt.rate.rate, t.burst_bytes);

  // As tc: TCA_OPTIONS opened as a plain attribute (no NLA_F_NESTED), its
  // length fixed once the attributes inside are written.
  auto* options = static_cast<nlattr*>(mnl_nlmsg_get_payload_tail(nlh));
  mnl_attr_put(nlh, TCA_OPTIONS, 0, nullptr);
  mnl_attr_put(nlh, TCA_TBF_PARMS, sizeof opt, &opt);
  mnl_attr_put(nlh, TCA_TBF_BURST, sizeof t.burst_bytes, &t.burst_bytes);
  if (t.rate_bytes_per_s >= (uint64_t{1} << 32))
    mnl_attr_put(nlh, TCA_TBF_RATE64, sizeof t.rate_bytes_per_s, &t.rate_bytes_per_s);
  mnl_attr_put(nlh, TCA_TBF_RTAB, sizeof rtab, rtab);
  options->nla_len = static_cast<uint16_t>(static_cast<char*>(mnl_nlmsg_get_payload_tail(nlh)) -
                                           reinterpret_cast<char*>(options));
  buf.resize(nlh->nlmsg_len);
  return buf;
}

}  // namespace fabriclab::netem::netlink
