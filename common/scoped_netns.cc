#include "common/scoped_netns.h"

#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace fabriclab {

int open_netns_by_name(const std::string& name) {
  const std::string path = "/run/netns/" + name;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    throw std::runtime_error("network namespace '" + name + "': cannot open " + path + ": " +
                             std::strerror(errno));
  }
  return fd;
}

ScopedNetns::ScopedNetns(const std::string& name) {
  if (name.empty()) return;
  int fd = open_netns_by_name(name);
  try {
    enter(fd, "'" + name + "'");
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
}

ScopedNetns::ScopedNetns(int netns_fd) {
  if (netns_fd < 0) return;
  enter(netns_fd, "fd " + std::to_string(netns_fd));
}

void ScopedNetns::enter(int target_fd, const std::string& what) {
  original_fd_ = ::open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
  if (original_fd_ < 0) {
    throw std::runtime_error(std::string("cannot open own network namespace: ") +
                             std::strerror(errno));
  }
  if (::setns(target_fd, CLONE_NEWNET) != 0) {
    int err = errno;
    ::close(original_fd_);
    original_fd_ = -1;
    throw std::runtime_error("cannot enter network namespace " + what + ": " +
                             std::strerror(err) +
                             (err == EPERM ? " (needs CAP_SYS_ADMIN: run as root or rootless "
                                             "inside a user namespace)"
                                           : ""));
  }
}

ScopedNetns::~ScopedNetns() {
  if (original_fd_ < 0) return;
  // Returning can only fail if our own namespace vanished, which it cannot
  // while we hold its fd; nothing sensible to do in a destructor anyway.
  (void)::setns(original_fd_, CLONE_NEWNET);
  ::close(original_fd_);
}

}  // namespace fabriclab
