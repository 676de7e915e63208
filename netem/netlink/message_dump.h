// Rtnetlink messages as text, for `fabriclab netem apply --dry-run`: a
// teaching aid (what tc would send, field by field) and a way to check the
// encoding from outside (the hex is what goes on the socket).
//
// describe_message() prints the nlmsghdr, the tcmsg and the attribute tree,
// naming the fields of the structures netem, htb and u32 use:
//
//   nlmsghdr  len 76  type RTM_NEWQDISC  flags REQUEST|ACK|EXCL|CREATE  seq 1  pid 0
//   tcmsg     family 0  ifindex 2  handle fab0:  parent root  info 0
//   TCA_KIND (1) "netem"
//   TCA_OPTIONS (2) 28 bytes
//     tc_netem_qopt  latency 1562500 ticks (100ms)  limit 166667  loss 0 (0%) ...
//
// hex_dump() is `xxd`-like: offset, 16 bytes in hex, ASCII. Thread-safe (pure).
#pragma once

#include <string>

#include "netem/netlink/qdisc_message.h"

namespace fabriclab::netem::netlink {

std::string describe_message(const Message& message);
std::string hex_dump(const Message& message);

}  // namespace fabriclab::netem::netlink
