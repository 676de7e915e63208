// A device's traffic counters as the kernel keeps them, read from
// /proc/net/dev: the same numbers (dev_get_stats()) that `ip -s link` shows.
// Everything the device sent or received is counted: IP and TCP headers,
// ACKs, retransmissions, ARP -- the bytes of each frame without the
// Ethernet preamble and FCS (a veth has neither).
//
// /proc/net/dev shows the network namespace of whoever opens it:
// /proc/self/net/dev that of the process (its main thread),
// /proc/thread-self/net/dev that of the calling thread (after setns(2),
// common/scoped_netns.h). The runner reads the lab namespaces' devices
// through the second, the trainer its own through the first.
//
// Thread safety: the functions are pure and safe from any thread; a
// DeviceCounterReader belongs to one thread at a time.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace fabriclab {

// Cumulative since the device was created; bytes and packets.
struct DeviceCounters {
  uint64_t rx_bytes = 0;
  uint64_t rx_packets = 0;
  uint64_t tx_bytes = 0;
  uint64_t tx_packets = 0;
  uint64_t rx_dropped = 0;  // the `drop` columns: packets the device discarded
  uint64_t tx_dropped = 0;
};

// Field by field `now - before`; a field that went backwards (the device was
// recreated) gives 0, never a wrapped huge number.
DeviceCounters counters_since(const DeviceCounters& now, const DeviceCounters& before);

// The devices of one /proc/net/dev text, by name. The two header lines and
// any line that does not hold a name and 16 numbers are skipped.
std::map<std::string, DeviceCounters> parse_proc_net_dev(const std::string& text);

// `device`'s counters from the file at `path` (e.g. "/proc/self/net/dev");
// nullopt when the file cannot be read or has no such device. Opens the file
// for this one read; a caller that reads every step keeps a
// DeviceCounterReader instead.
std::optional<DeviceCounters> read_device_counters(const std::string& path,
                                                   const std::string& device);

// `device`'s counters read again and again from one open file: the trainer
// reads its interface's twice a step, and opening a /proc file is most of
// what a read costs (doc/benchmarks.md, "The per-step accounting"). A pread
// at offset 0 makes the kernel print the file afresh, so every read() sees
// the counters of that moment. The file is opened at the first read (and
// again after a failed one); /proc/self/net/dev stays bound to the network
// namespace the process was in when it was opened.
class DeviceCounterReader {
 public:
  DeviceCounterReader(std::string path, std::string device);
  ~DeviceCounterReader();
  DeviceCounterReader(const DeviceCounterReader&) = delete;
  DeviceCounterReader& operator=(const DeviceCounterReader&) = delete;

  // nullopt when the file cannot be read or has no such device.
  std::optional<DeviceCounters> read();

 private:
  std::string path_;
  std::string device_;
  int fd_ = -1;
  std::string text_;  // the file's text, its buffer reused from read to read
};

}  // namespace fabriclab
