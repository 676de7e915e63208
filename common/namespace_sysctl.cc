#include "common/namespace_sysctl.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "common/scoped_netns.h"

namespace fabriclab {
namespace {

// The write, or the errno that stopped it (0: it took).
int write_value(int netns_fd, const std::string& key, const std::string& value) {
  ScopedNetns inside(netns_fd);
  const int fd = ::open(sysctl_path(key).c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  const std::string line = value + "\n";
  const ssize_t written = ::write(fd, line.data(), line.size());
  const int err = written == static_cast<ssize_t>(line.size()) ? 0 : (written < 0 ? errno : EIO);
  ::close(fd);
  return err;
}

}  // namespace

std::string sysctl_path(const std::string& key) {
  std::string path = "/proc/sys/" + key;
  std::replace(path.begin() + 10, path.end(), '.', '/');
  return path;
}

std::string read_sysctl(int netns_fd, const std::string& key) {
  ScopedNetns inside(netns_fd);
  std::ifstream in(sysctl_path(key));
  std::string value;
  if (!in || !std::getline(in, value)) {
    throw std::runtime_error("sysctl " + key + ": not found in this kernel (" + sysctl_path(key) +
                             ")");
  }
  std::replace(value.begin(), value.end(), '\t', ' ');
  return value;
}

void write_sysctl(int netns_fd, const std::string& key, const std::string& value) {
  const int err = write_value(netns_fd, key, value);
  if (err != 0) {
    throw std::runtime_error("sysctl " + key + "=" + value + ": the kernel refused it (" +
                             std::strerror(err) + ")");
  }
}

bool try_write_sysctl(int netns_fd, const std::string& key, const std::string& value) {
  return write_value(netns_fd, key, value) == 0;
}

}  // namespace fabriclab
