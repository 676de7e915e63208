#include "common/proc_net_dev.h"

#include <fcntl.h>
#include <unistd.h>

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
  // The trainer reads this twice a step: one read() and only the device's
  // line parsed (an ifstream and every device's line cost ~20 us a read here;
  // doc/benchmarks.md, "The per-step accounting").
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::string text;
  char buf[8192];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) text.append(buf, static_cast<size_t>(n));
  ::close(fd);
  // The line whose name (before the colon, after the padding) is `device`.
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const size_t colon = text.find(':', start);
    if (colon < end) {
      size_t name = start;
      while (name < colon && text[name] == ' ') ++name;
      if (text.compare(name, colon - name, device) == 0) {
        const auto devices = parse_proc_net_dev(text.substr(start, end - start));
        const auto it = devices.find(device);
        if (it == devices.end()) return std::nullopt;
        return it->second;
      }
    }
    start = end + 1;
  }
  return std::nullopt;
}

}  // namespace fabriclab
