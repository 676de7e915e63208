#include "runner/scenario/netns_counters.h"

#include <fstream>
#include <sstream>
#include <vector>

#include "common/file_text.h"
#include "common/scoped_netns.h"

namespace fabriclab::runner {
namespace {

// /proc/thread-self/net follows the calling thread's network namespace;
// /proc/self/net would follow the main thread's.
std::string read_proc_net(int netns_fd, const std::string& file) {
  try {
    ScopedNetns inside(netns_fd);
    return read_file_text("/proc/thread-self/net/" + file);
  } catch (const std::exception&) {
    return "";
  }
}

}  // namespace

uint64_t read_stat_counter(int netns_fd, const std::string& file, const std::string& section,
                           const std::string& name) {
  // Two lines per section ("Tcp:", "TcpExt:"): names, then values, in order.
  std::istringstream text(read_proc_net(netns_fd, file));
  const std::string prefix = section + ":";
  std::vector<std::string> names;
  for (std::string line; std::getline(text, line);) {
    if (line.rfind(prefix, 0) != 0) continue;
    std::istringstream fields(line.substr(prefix.size()));
    std::vector<std::string> words;
    for (std::string w; fields >> w;) words.push_back(w);
    if (names.empty()) {
      names = words;
      continue;
    }
    for (size_t i = 0; i < names.size() && i < words.size(); ++i) {
      if (names[i] == name) return std::stoull(words[i]);
    }
    return 0;
  }
  return 0;
}

uint64_t read_tcp_retransmits(int netns_fd) {
  return read_stat_counter(netns_fd, "snmp", "Tcp", "RetransSegs");
}

uint64_t read_tcp_spurious_retransmits(int netns_fd) {
  return read_stat_counter(netns_fd, "netstat", "TcpExt", "TCPDSACKRecvSegs");
}

EcnCounters read_ecn_counters(int netns_fd) {
  return {read_stat_counter(netns_fd, "netstat", "IpExt", "InCEPkts"),
          read_stat_counter(netns_fd, "netstat", "TcpExt", "TCPDeliveredCE")};
}

std::optional<DeviceCounters> read_device_counters_in(int netns_fd, const std::string& device) {
  const auto devices = parse_proc_net_dev(read_proc_net(netns_fd, "dev"));
  const auto it = devices.find(device);
  if (it == devices.end()) return std::nullopt;
  return it->second;
}

}  // namespace fabriclab::runner
