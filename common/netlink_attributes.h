// Walking netlink attributes from C++ (libmnl's for_each macros assign void*
// to the cursor, which C++ refuses). Stops at the first malformed attribute.
#pragma once

#include <libmnl/libmnl.h>

#include <cstddef>

namespace fabriclab {

template <typename F>
void for_each_attr(const void* start, size_t length, F&& f) {
  const char* p = static_cast<const char*>(start);
  const char* end = p + length;
  while (p + sizeof(nlattr) <= end) {
    const auto* a = reinterpret_cast<const nlattr*>(p);
    if (a->nla_len < sizeof(nlattr) || p + a->nla_len > end) break;
    f(a);
    p += MNL_ALIGN(a->nla_len);
  }
}

template <typename F>
void for_each_nested(const nlattr* nest, F&& f) {
  for_each_attr(mnl_attr_get_payload(nest), mnl_attr_get_payload_len(nest), f);
}

// The attributes of a message after its fixed header of `header_size` bytes.
template <typename F>
void for_each_message_attr(const nlmsghdr* nlh, size_t header_size, F&& f) {
  const char* payload = static_cast<const char*>(mnl_nlmsg_get_payload(nlh));
  size_t total = mnl_nlmsg_get_payload_len(nlh);
  if (total < MNL_ALIGN(header_size)) return;
  for_each_attr(payload + MNL_ALIGN(header_size), total - MNL_ALIGN(header_size), f);
}

}  // namespace fabriclab
