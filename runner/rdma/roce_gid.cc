#include "runner/rdma/roce_gid.h"

#include <arpa/inet.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace fabriclab::runner::rdma {

namespace {
// rxe's GID table has 1024 entries; an interface has a handful of addresses.
constexpr int kGidsLooked = 64;

std::string read_line(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}
}  // namespace

std::string ipv4_mapped_gid(const std::string& ipv4) {
  in_addr a{};
  if (::inet_pton(AF_INET, ipv4.c_str(), &a) != 1)
    throw std::runtime_error("'" + ipv4 + "' is not an IPv4 address");
  const auto* b = reinterpret_cast<const unsigned char*>(&a.s_addr);
  char text[48];
  std::snprintf(text, sizeof text, "0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x", b[0], b[1],
                b[2], b[3]);
  return text;
}

int roce_gid_index(const std::string& device, const std::string& ipv4, int port,
                   const std::string& sysfs) {
  const std::string want = ipv4_mapped_gid(ipv4);
  const std::filesystem::path dir =
      std::filesystem::path(sysfs) / device / "ports" / std::to_string(port);
  std::string seen;
  for (int i = 0; i < kGidsLooked; ++i) {
    const std::string gid = read_line(dir / "gids" / std::to_string(i));
    if (gid.empty()) break;
    if (gid == want) {
      // The same address can also appear as a RoCE v1 GID (a real NIC): v2
      // is the one routed over UDP, what rxe speaks.
      const std::string type = read_line(dir / "gid_attrs" / "types" / std::to_string(i));
      if (type.empty() || type.find("v2") != std::string::npos) return i;
    }
    if (gid != "0000:0000:0000:0000:0000:0000:0000:0000") seen += " " + std::to_string(i) + "=" + gid;
  }
  throw std::runtime_error("RDMA device " + device + " has no RoCE v2 GID for " + ipv4 + " (" +
                           want + "); its GIDs:" + (seen.empty() ? " none" : seen));
}

}  // namespace fabriclab::runner::rdma
