// Reading what NFQUEUE hands over, apart from the socket so it can be tested
// and fuzzed on bytes alone (tests/fuzz/fuzz_nfqueue_packet.cc): one
// NFQNL_MSG_PACKET message -> QueuedPacket, and a packet's IPv4 header -> the
// fields the switch (switch_worker.h) decides by.
// Both read only inside the bytes they are given; a message or header that
// is too short or malformed is refused (nullopt), never read past.
// Thread-safe (pure).
#pragma once

#include <cstdint>
#include <optional>

struct nlmsghdr;

namespace fabriclab::netem::userspace {

// One queued packet as the kernel hands it over: its id, its length, and its
// first bytes (as many as NfqueueSocket::Options::copy_bytes asked for: from
// the IP header). `head` points into the message it was read from.
struct QueuedPacket {
  uint32_t id = 0;
  uint32_t length = 0;
  const uint8_t* head = nullptr;
  uint32_t head_length = 0;
};

// The packet in one nfnetlink_queue message; nullopt for a message that is
// not a packet (no NFQA_PACKET_HDR) or whose attributes are malformed.
std::optional<QueuedPacket> parse_queued_packet(const nlmsghdr* nlh);

constexpr uint32_t kIpv4HeaderBytes = 20;

struct Ipv4Head {
  uint32_t source = 0;       // network byte order, as in the header
  uint32_t destination = 0;  // network byte order
  bool ect = false;          // ECN field non-zero: ECT(0), ECT(1) or CE already
};

// The IPv4 header at the start of `packet.head`; nullopt when the bytes are
// fewer than an IPv4 header or are not IPv4.
std::optional<Ipv4Head> read_ipv4_head(const QueuedPacket& packet);

}  // namespace fabriclab::netem::userspace
