// The RDMA netlink messages (NETLINK_RDMA, the kernel's "nldev" client) that
// `rdma link add NAME type rxe netdev DEV` and `rdma link delete NAME` send,
// built byte for byte as iproute2's rdma tool builds them (checked against
// its bytes under strace: tests/rdma/), plus the device dump that turns a
// device's name into its index (DELLINK takes the index).
//
// Pure functions: no socket, no kernel. Thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

struct nlmsghdr;

namespace fabriclab::runner::rdma {

using Message = std::vector<uint8_t>;  // one whole netlink message

// RDMA_NLDEV_CMD_NEWLINK: DEV_NAME `name`, LINK_TYPE `type` ("rxe"),
// NDEV_NAME `netdev`; NLM_F_REQUEST | NLM_F_ACK.
Message build_newlink(const std::string& name, const std::string& type, const std::string& netdev,
                      uint32_t seq);

// RDMA_NLDEV_CMD_DELLINK of the device with index `index`.
Message build_dellink(uint32_t index, uint32_t seq);

// RDMA_NLDEV_CMD_GET with NLM_F_DUMP: every RDMA device.
Message build_device_dump(uint32_t seq);

struct DeviceEntry {
  uint32_t index = 0;
  std::string name;
};

// One answer of the dump; nullopt when it is not a device (or lacks its index
// or name).
std::optional<DeviceEntry> parse_device(const nlmsghdr* message);

}  // namespace fabriclab::runner::rdma
