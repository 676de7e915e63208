// Which GID of an RDMA port is the RoCE v2 address of an IPv4 address: what
// a verbs program passes as its GID index so that its packets leave from the
// lab address (rxe adds one GID per address of its interface, in the order
// they were added, so the index differs from host to host: doc/roce.md).
//
// Errors: std::runtime_error naming the device, the address and the GIDs
// seen, when none matches (the address is not on the device's interface).
#pragma once

#include <string>

namespace fabriclab::runner::rdma {

// "::ffff:a.b.c.d" as the kernel writes it in gids/N:
// "0000:0000:0000:0000:0000:ffff:0a63:0001".
std::string ipv4_mapped_gid(const std::string& ipv4);

int roce_gid_index(const std::string& device, const std::string& ipv4, int port = 1,
                   const std::string& sysfs = "/sys/class/infiniband");

}  // namespace fabriclab::runner::rdma
