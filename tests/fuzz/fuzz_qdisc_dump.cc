// rtnetlink qdisc dumps as the kernel sends them (`tc -s qdisc show`):
// every RTM_NEWQDISC message through parse_qdisc() (tcmsg, kind, netem
// options, TCA_STATS2 statistics: netem/netlink/qdisc_list.h), walked the
// way RtnlSocket::dump walks a receive buffer (netlink_messages.h), and each
// message described field by field as `netem apply --dry-run` does
// (netem/netlink/message_dump.h), and the whole input as one message too.
#include <cstdint>

#include "netem/netlink/message_dump.h"
#include "netem/netlink/qdisc_list.h"
#include "tests/fuzz/netlink_messages.h"

namespace {

void on_message(const nlmsghdr* nlh) {
  using namespace fabriclab::netem::netlink;
  parse_qdisc(nlh);
  const auto* bytes = reinterpret_cast<const uint8_t*>(nlh);
  describe_message(Message(bytes, bytes + nlh->nlmsg_len));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // libFuzzer's copy is exactly `size` bytes on the heap (malloc-aligned, as a
  // receive buffer is): any read past the end is ASan's to catch.
  fabriclab::fuzz::for_each_netlink_message(data, size, on_message);
  // --dry-run describes a message it is handed whole: the bytes as they are.
  fabriclab::netem::netlink::describe_message(
      fabriclab::netem::netlink::Message(data, data + size));
  return 0;
}
