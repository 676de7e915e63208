// Walking netlink attributes from C++ (libmnl's for_each macros assign void*
// to the cursor, which C++ refuses). Stops at the first malformed attribute.
#pragma once

#include <libmnl/libmnl.h>

#include <cstddef>
#include <cstring>
#include <string>

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

// A string attribute's text, read no further than its payload (the kernel
// ends it with a NUL; a message from elsewhere may not).
inline std::string attr_string(const nlattr* a) {
  const char* text = static_cast<const char*>(mnl_attr_get_payload(a));
  return std::string(text, strnlen(text, mnl_attr_get_payload_len(a)));
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
