#include "netem/userspace/queued_packet.h"

#include <arpa/inet.h>
#include <libmnl/libmnl.h>
#include <libnetfilter_queue/libnetfilter_queue.h>
#include <linux/netfilter.h>

#include <cstring>

namespace fabriclab::netem::userspace {

std::optional<QueuedPacket> parse_queued_packet(const nlmsghdr* nlh) {
  nlattr* attr[NFQA_MAX + 1] = {};
  if (nfq_nlmsg_parse(nlh, attr) < 0 || attr[NFQA_PACKET_HDR] == nullptr) return std::nullopt;
  auto* hdr = static_cast<nfqnl_msg_packet_hdr*>(mnl_attr_get_payload(attr[NFQA_PACKET_HDR]));
  QueuedPacket packet;
  packet.id = ntohl(hdr->packet_id);
  if (attr[NFQA_PAYLOAD] != nullptr) {
    packet.head = static_cast<const uint8_t*>(mnl_attr_get_payload(attr[NFQA_PAYLOAD]));
    packet.head_length = mnl_attr_get_payload_len(attr[NFQA_PAYLOAD]);
    packet.length = packet.head_length;
  }
  if (attr[NFQA_CAP_LEN] != nullptr) packet.length = ntohl(mnl_attr_get_u32(attr[NFQA_CAP_LEN]));
  return packet;
}

std::optional<Ipv4Head> read_ipv4_head(const QueuedPacket& packet) {
  if (packet.head_length < kIpv4HeaderBytes || (packet.head[0] >> 4) != 4) return std::nullopt;
  Ipv4Head ip;
  std::memcpy(&ip.source, packet.head + 12, 4);
  std::memcpy(&ip.destination, packet.head + 16, 4);
  ip.ect = (packet.head[1] & 0x3) != 0;
  return ip;
}

}  // namespace fabriclab::netem::userspace
