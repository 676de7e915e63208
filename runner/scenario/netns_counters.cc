#include "runner/scenario/netns_counters.h"

#include <fstream>
#include <sstream>
#include <vector>

#include "common/scoped_netns.h"

namespace fabriclab::runner {
namespace {

// /proc/thread-self/net follows the calling thread's network namespace;
// /proc/self/net would follow the main thread's.
std::string read_proc_net(int netns_fd, const std::string& file) {
  try {
    ScopedNetns inside(netns_fd);
    std::ifstream in("/proc/thread-self/net/" + file);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  } catch (const std::exception&) {
    return "";
  }
}

}  // namespace

uint64_t read_tcp_retransmits(int netns_fd) {
  // Two "Tcp:" lines: names, then values, in the same order.
  std::istringstream text(read_proc_net(netns_fd, "snmp"));
  std::vector<std::string> names;
  for (std::string line; std::getline(text, line);) {
    if (line.rfind("Tcp:", 0) != 0) continue;
    std::istringstream fields(line.substr(4));
    std::vector<std::string> words;
    for (std::string w; fields >> w;) words.push_back(w);
    if (names.empty()) {
      names = words;
      continue;
    }
    for (size_t i = 0; i < names.size() && i < words.size(); ++i) {
      if (names[i] == "RetransSegs") return std::stoull(words[i]);
    }
  }
  return 0;
}

uint64_t read_device_bytes(int netns_fd, const std::string& device) {
  // "  eth0: rx_bytes rx_packets ... (8 rx fields) tx_bytes ..."
  std::istringstream text(read_proc_net(netns_fd, "dev"));
  for (std::string line; std::getline(text, line);) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::istringstream name_part(line.substr(0, colon));
    std::string name;
    name_part >> name;
    if (name != device) continue;
    std::istringstream fields(line.substr(colon + 1));
    std::vector<uint64_t> values;
    for (uint64_t v; fields >> v;) values.push_back(v);
    if (values.size() >= 9) return values[0] + values[8];
  }
  return 0;
}

}  // namespace fabriclab::runner
