// RDMA links on this host, the `rdma link` equivalents fabriclab needs:
// which RDMA devices exist and on which interface, add a SoftRoCE (rxe)
// device on an interface, delete a device by name. Through RDMA netlink
// (NETLINK_RDMA, libmnl: rdma_link_message.h); what exists is read from
// /sys/class/infiniband, so a host that has never used RDMA is not made to
// load ib_core just to be told "none" (opening a NETLINK_RDMA socket loads
// it on demand: `net-pf-16-proto-20`).
//
// rxe on Debian's 6.1 kernel works in the initial network namespace only
// (doc/roce.md: a device on an interface in another namespace is created
// but sends nothing), so these act in the caller's namespace: host mode.
//
// Needs CAP_NET_ADMIN for add and delete. Errors: KernelError (common/
// rtnl_socket.h) with the kernel's errno and sentence. Thread-safe (each
// call opens its own socket).
#pragma once

#include <string>
#include <vector>

namespace fabriclab::runner::rdma {

struct RdmaDevice {
  std::string name;        // "rxe0"
  std::string netdev;      // the Ethernet interface under it, "" if none (InfiniBand)
  std::string link_layer;  // "Ethernet", "InfiniBand"
};

// Every device under /sys/class/infiniband (none: the directory is absent
// or empty), sorted by name.
std::vector<RdmaDevice> list_rdma_devices();

// The device on `netdev`, or "" if none. rxe allows one per interface.
std::string rdma_device_on(const std::string& netdev);

// `rdma link add NAME type rxe netdev NETDEV`. The kernel loads rdma_rxe on
// demand (`rdma-link-rxe`).
void add_rxe_link(const std::string& name, const std::string& netdev);

// `rdma link delete NAME`. Returns false (and does nothing) when no device
// has that name.
bool delete_rdma_link(const std::string& name);

}  // namespace fabriclab::runner::rdma
