#include "common/proc_net_dev.h"

#include <fstream>
#include <sstream>
#include <vector>

#include "common/file_text.h"

namespace fabriclab {
namespace {

uint64_t minus(uint64_t now, uint64_t before) { return now >= before ? now - before : 0; }

}  // namespace

DeviceCounters counters_since(const DeviceCounters& now, const DeviceCounters& before) {
  return {minus(now.rx_bytes, before.rx_bytes),     minus(now.rx_packets, before.rx_packets),
          minus(now.tx_bytes, before.tx_bytes),     minus(now.tx_packets, before.tx_packets),
          minus(now.rx_dropped, before.rx_dropped), minus(now.tx_dropped, before.tx_dropped)};
}

std::map<std::string, DeviceCounters> parse_proc_net_dev(const std::string& text) {
  // "  eth0: rx_bytes rx_packets errs drop fifo frame compressed multicast
  //          tx_bytes tx_packets errs drop fifo colls carrier compressed".
  // A name never holds ':' (dev_valid_name()), and with large counters the
  // first number may touch the colon: split there, not at whitespace.
  std::map<std::string, DeviceCounters> devices;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::istringstream name_part(line.substr(0, colon));
    std::string name;
    if (!(name_part >> name)) continue;
    std::istringstream fields(line.substr(colon + 1));
    std::vector<uint64_t> values;
    for (uint64_t v; fields >> v;) values.push_back(v);
    if (values.size() != 16 || !fields.eof()) continue;
    devices[name] = {values[0], values[1], values[8], values[9], values[3], values[11]};
  }
  return devices;
}

std::optional<DeviceCounters> read_device_counters(const std::string& path,
                                                   const std::string& device) {
  const std::optional<std::string> text = try_read_file_text(path);
  if (!text) return std::nullopt;
  const auto devices = parse_proc_net_dev(*text);
  const auto it = devices.find(device);
  if (it == devices.end()) return std::nullopt;
  return it->second;
}

}  // namespace fabriclab
