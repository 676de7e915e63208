// Packets as NFQUEUE hands them over (netem/userspace/queued_packet.h): a
// receive buffer of nfnetlink_queue messages, walked as NfqueueSocket does
// (netlink_messages.h), each packet's IPv4 header read as the switch reads it.
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "netem/userspace/queued_packet.h"
#include "tests/fuzz/netlink_messages.h"

namespace {

void on_message(const nlmsghdr* nlh) {
  using namespace fabriclab::netem::userspace;
  const auto packet = parse_queued_packet(nlh);
  if (!packet) return;
  // The head lies inside the message (its padded length, as libmnl reads it).
  const auto* begin = reinterpret_cast<const uint8_t*>(nlh);
  if (packet->head_length != 0 && (packet->head < begin || packet->head + packet->head_length >
                                                               begin + NLMSG_ALIGN(nlh->nlmsg_len)))
    std::abort();
  read_ipv4_head(*packet);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // libFuzzer's copy is exactly `size` bytes on the heap (malloc-aligned, as a
  // receive buffer is): any read past the end is ASan's to catch.
  fabriclab::fuzz::for_each_netlink_message(data, size, on_message);
  return 0;
}
