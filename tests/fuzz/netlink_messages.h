// Walks a receive buffer of netlink messages for the netlink fuzz targets,
// as libmnl's mnl_cb_run() does for the project's sockets: each message whose
// padded length fits in what is left, at NLMSG_ALIGN steps.
//
// Why not mnl_cb_run() itself: libmnl 1.0.4's mnl_nlmsg_ok() compares
// (int)nlmsg_len <= len, so a length >= 2^31 passes its check and the walk
// leaves the buffer. The kernel never sends such a length, and only a
// CAP_NET_ADMIN process can send to our sockets, so it is no bug of ours; the
// fuzz targets frame messages correctly and test what the project parses.
#pragma once

#include <linux/netlink.h>

#include <cstddef>
#include <cstdint>

namespace fabriclab::fuzz {

template <typename F>
void for_each_netlink_message(const uint8_t* data, size_t size, F&& on_message) {
  while (size >= sizeof(nlmsghdr)) {
    const auto* nlh = reinterpret_cast<const nlmsghdr*>(data);
    // The kernel pads every message to NLMSG_ALIGN, and libmnl reads
    // attributes up to the padded end: the padding must be in the buffer.
    // (In size_t: NLMSG_ALIGN of a 32-bit length near 2^32 wraps to 0.)
    const size_t padded = (size_t{nlh->nlmsg_len} + NLMSG_ALIGNTO - 1) & ~size_t{NLMSG_ALIGNTO - 1};
    if (nlh->nlmsg_len < sizeof(nlmsghdr) || padded > size) return;
    on_message(nlh);
    const size_t step = padded;
    if (step >= size) return;
    data += step;
    size -= step;
  }
}

}  // namespace fabriclab::fuzz
