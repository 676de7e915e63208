// One network namespace's sysctls, through /proc/sys. /proc/sys/net shows
// the namespace of the thread that opens the file, so each call enters the
// namespace (ScopedNetns) for its open; netns_fd < 0: this thread's own.
//
// Keys are written as sysctl(8) writes them ("net.ipv4.ip_forward").
//
// Errors: std::runtime_error naming the key (and value) and why: "sysctl
// KEY: not found in this kernel (PATH)", "sysctl KEY=VALUE: the kernel
// refused it (REASON)".
#pragma once

#include <string>

namespace fabriclab {

// "net.ipv4.ip_forward" -> "/proc/sys/net/ipv4/ip_forward".
std::string sysctl_path(const std::string& key);

std::string read_sysctl(int netns_fd, const std::string& key);
void write_sysctl(int netns_fd, const std::string& key, const std::string& value);

// The same write where a missing key or a refusal is not an error (a kernel
// without IPv6 has nothing to switch off): false when it did not take.
bool try_write_sysctl(int netns_fd, const std::string& key, const std::string& value);

}  // namespace fabriclab
