#include "runner/rdma/rdma_link_message.h"

#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>

namespace fabriclab::runner::rdma {

namespace {

// A message buffer with the RDMA nldev header; `finish` trims it.
struct Builder {
  Message buffer = Message(MNL_SOCKET_BUFFER_SIZE, 0);
  nlmsghdr* header;

  Builder(int command, uint16_t flags, uint32_t seq) {
    header = mnl_nlmsg_put_header(buffer.data());
    header->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, command);
    header->nlmsg_flags = flags;
    header->nlmsg_seq = seq;
  }
  Message finish() {
    buffer.resize(header->nlmsg_len);
    return std::move(buffer);
  }
};

}  // namespace

Message build_newlink(const std::string& name, const std::string& type, const std::string& netdev,
                      uint32_t seq) {
  Builder b(RDMA_NLDEV_CMD_NEWLINK, NLM_F_REQUEST | NLM_F_ACK, seq);
  mnl_attr_put_strz(b.header, RDMA_NLDEV_ATTR_DEV_NAME, name.c_str());
  mnl_attr_put_strz(b.header, RDMA_NLDEV_ATTR_LINK_TYPE, type.c_str());
  mnl_attr_put_strz(b.header, RDMA_NLDEV_ATTR_NDEV_NAME, netdev.c_str());
  return b.finish();
}

Message build_dellink(uint32_t index, uint32_t seq) {
  Builder b(RDMA_NLDEV_CMD_DELLINK, NLM_F_REQUEST | NLM_F_ACK, seq);
  mnl_attr_put_u32(b.header, RDMA_NLDEV_ATTR_DEV_INDEX, index);
  return b.finish();
}

Message build_device_dump(uint32_t seq) {
  return Builder(RDMA_NLDEV_CMD_GET, NLM_F_REQUEST | NLM_F_ACK | NLM_F_DUMP, seq).finish();
}

std::optional<DeviceEntry> parse_device(const nlmsghdr* message) {
  if (message->nlmsg_type != RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET))
    return std::nullopt;
  DeviceEntry entry;
  bool has_index = false;
  // mnl_attr_for_each's casts do not compile as C++ (void* to nlattr*).
  const char* const end = reinterpret_cast<const char*>(message) + message->nlmsg_len;
  for (auto* attr = static_cast<const nlattr*>(mnl_nlmsg_get_payload(message));
       mnl_attr_ok(attr, static_cast<int>(end - reinterpret_cast<const char*>(attr)));
       attr = mnl_attr_next(attr)) {
    switch (mnl_attr_get_type(attr)) {
      case RDMA_NLDEV_ATTR_DEV_INDEX:
        if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0) return std::nullopt;
        entry.index = mnl_attr_get_u32(attr);
        has_index = true;
        break;
      case RDMA_NLDEV_ATTR_DEV_NAME:
        if (mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) < 0) return std::nullopt;
        entry.name = mnl_attr_get_str(attr);
        break;
      default:
        break;
    }
  }
  if (!has_index || entry.name.empty()) return std::nullopt;
  return entry;
}

}  // namespace fabriclab::runner::rdma
