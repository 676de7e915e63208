#include "common/proc_net_dev.h"

#include <fcntl.h>
#include <unistd.h>

#include <string_view>
#include <utility>

namespace fabriclab {
namespace {

uint64_t minus(uint64_t now, uint64_t before) { return now >= before ? now - before : 0; }

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// One line of /proc/net/dev, "  eth0: rx_bytes rx_packets errs drop fifo
// frame compressed multicast tx_bytes tx_packets errs drop fifo colls carrier
// compressed", split at its colon: the name, its padding trimmed ("" when the
// line has no colon or no name), and the counters' text. A name never holds
// ':' (dev_valid_name()), and with large counters the first number may touch
// the colon: split there, not at whitespace.
struct DeviceLine {
  std::string_view name;
  std::string_view counters;
};

DeviceLine split_device_line(std::string_view line) {
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos) return {};
  std::string_view name = line.substr(0, colon);
  while (!name.empty() && is_blank(name.front())) name.remove_prefix(1);
  while (!name.empty() && is_blank(name.back())) name.remove_suffix(1);
  return {name, line.substr(colon + 1)};
}

// The 16 counters after the colon, or nullopt when they are not 16 numbers.
// Parsed by hand, not with streams: the trainer parses its device's line
// twice a step.
std::optional<DeviceCounters> parse_counters(std::string_view text) {
  uint64_t values[16];
  int count = 0;
  for (size_t i = 0; i < text.size();) {
    if (is_blank(text[i])) {
      ++i;
      continue;
    }
    if (text[i] < '0' || text[i] > '9' || count == 16) return std::nullopt;
    uint64_t value = 0;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
      const uint64_t digit = static_cast<uint64_t>(text[i] - '0');
      if (value > (UINT64_MAX - digit) / 10) return std::nullopt;  // not a counter
      value = value * 10 + digit;
    }
    if (i < text.size() && !is_blank(text[i])) return std::nullopt;  // "12x"
    values[count++] = value;
  }
  if (count != 16) return std::nullopt;
  return DeviceCounters{values[0], values[1], values[8], values[9], values[3], values[11]};
}

// A device's line: its name and counters, or nullopt when it is not one.
std::optional<std::pair<std::string_view, DeviceCounters>> parse_line(std::string_view line) {
  const DeviceLine split = split_device_line(line);
  if (split.name.empty()) return std::nullopt;
  const std::optional<DeviceCounters> counters = parse_counters(split.counters);
  if (!counters) return std::nullopt;
  return std::make_pair(split.name, *counters);
}

}  // namespace

DeviceCounters counters_since(const DeviceCounters& now, const DeviceCounters& before) {
  return {minus(now.rx_bytes, before.rx_bytes),     minus(now.rx_packets, before.rx_packets),
          minus(now.tx_bytes, before.tx_bytes),     minus(now.tx_packets, before.tx_packets),
          minus(now.rx_dropped, before.rx_dropped), minus(now.tx_dropped, before.tx_dropped)};
}

std::map<std::string, DeviceCounters> parse_proc_net_dev(const std::string& text) {
  std::map<std::string, DeviceCounters> devices;
  const std::string_view all(text);
  for (size_t start = 0; start < all.size();) {
    size_t end = all.find('\n', start);
    if (end == std::string_view::npos) end = all.size();
    if (const auto parsed = parse_line(all.substr(start, end - start)))
      devices[std::string(parsed->first)] = parsed->second;
    start = end + 1;
  }
  return devices;
}

std::optional<DeviceCounters> read_device_counters(const std::string& path,
                                                   const std::string& device) {
  return DeviceCounterReader(path, device).read();
}

DeviceCounterReader::DeviceCounterReader(std::string path, std::string device)
    : path_(std::move(path)), device_(std::move(device)) {}

DeviceCounterReader::~DeviceCounterReader() {
  if (fd_ >= 0) ::close(fd_);
}

std::optional<DeviceCounters> DeviceCounterReader::read() {
  if (fd_ < 0) fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) return std::nullopt;
  // From offset 0 until the end: a lab namespace's file (lo, eth0) fits the
  // first read; a host's with many devices takes a few.
  if (text_.size() < 4096) text_.resize(4096);
  size_t used = 0;
  for (;;) {
    if (used == text_.size()) text_.resize(2 * text_.size());
    const ssize_t n = ::pread(fd_, text_.data() + used, text_.size() - used,
                              static_cast<off_t>(used));
    if (n < 0) {
      // The next read opens the file again.
      ::close(fd_);
      fd_ = -1;
      return std::nullopt;
    }
    if (n == 0) break;
    used += static_cast<size_t>(n);
  }
  // The line whose name (before the colon, after the padding) is the device.
  const std::string_view text(text_.data(), used);
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    // The name first: only the device's own line has its numbers parsed.
    const DeviceLine split = split_device_line(line);
    if (split.name == device_) return parse_counters(split.counters);
    start = end + 1;
  }
  return std::nullopt;
}

}  // namespace fabriclab
