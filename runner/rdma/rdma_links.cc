#include "runner/rdma/rdma_links.h"

#include <dirent.h>
#include <linux/netlink.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <memory>
#include <optional>

#include "common/rtnl_socket.h"
#include "runner/rdma/rdma_link_message.h"

namespace fabriclab::runner::rdma {

namespace {

const char* const kClassDir = "/sys/class/infiniband";

std::string first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// An RDMA netlink socket; a kernel without InfiniBand support has none.
std::unique_ptr<RtnlSocket> open_rdma_socket(const std::string& doing) {
  try {
    return std::make_unique<RtnlSocket>("", NETLINK_RDMA, "RDMA");
  } catch (const KernelError& e) {
    if (e.error() != EPROTONOSUPPORT) throw;
    throw KernelError(doing +
                          ": this kernel has no RDMA support (no NETLINK_RDMA; SoftRoCE "
                          "needs CONFIG_RDMA_RXE, see `fabriclab doctor`)",
                      e.error(), "");
  }
}

// The device's index (DELLINK takes it), from the kernel's device dump.
std::optional<uint32_t> device_index(RtnlSocket& socket, const std::string& name) {
  std::optional<uint32_t> index;
  socket.dump(
      build_device_dump(socket.next_seq()),
      [&](const nlmsghdr* message) {
        const std::optional<DeviceEntry> entry = parse_device(message);
        if (entry && entry->name == name) index = entry->index;
      },
      "list RDMA devices");
  return index;
}

}  // namespace

std::vector<RdmaDevice> list_rdma_devices() {
  std::vector<RdmaDevice> devices;
  DIR* dir = ::opendir(kClassDir);
  if (dir == nullptr) return devices;
  while (const dirent* entry = ::readdir(dir)) {
    const std::string name = entry->d_name;
    if (name == "." || name == "..") continue;
    const std::string port = std::string(kClassDir) + "/" + name + "/ports/1";
    // GID 0's interface: rxe's and every RoCE device's netdev.
    devices.push_back(
        {name, first_line(port + "/gid_attrs/ndevs/0"), first_line(port + "/link_layer")});
  }
  ::closedir(dir);
  std::sort(devices.begin(), devices.end(),
            [](const RdmaDevice& a, const RdmaDevice& b) { return a.name < b.name; });
  return devices;
}

std::string rdma_device_on(const std::string& netdev) {
  for (const RdmaDevice& device : list_rdma_devices())
    if (device.netdev == netdev) return device.name;
  return "";
}

void add_rxe_link(const std::string& name, const std::string& netdev) {
  const std::string doing = "rdma link add " + name + " type rxe netdev " + netdev;
  const std::unique_ptr<RtnlSocket> socket = open_rdma_socket(doing);
  socket->request(build_newlink(name, "rxe", netdev, socket->next_seq()), doing);
}

bool delete_rdma_link(const std::string& name) {
  // No such device: do not open the socket (and load ib_core) to find out.
  if (::access((std::string(kClassDir) + "/" + name).c_str(), F_OK) != 0) return false;
  const std::unique_ptr<RtnlSocket> socket = open_rdma_socket("rdma link delete " + name);
  const std::optional<uint32_t> index = device_index(*socket, name);
  if (!index) return false;
  socket->request(build_dellink(*index, socket->next_seq()), "rdma link delete " + name);
  return true;
}

}  // namespace fabriclab::runner::rdma
