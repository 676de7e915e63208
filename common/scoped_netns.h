// Moves the calling thread into another network namespace for the lifetime of
// the object, and back on destruction (setns(2) is per thread).
//
// Use it to open sockets that belong to a lab namespace: a netlink, NFQUEUE or
// TCP socket stays bound to the namespace it was created in after the thread
// returns. Not for long work: other code on this thread sees the namespace too.
//
// Errors: std::runtime_error naming the namespace and errno (ENOENT: no such
// namespace under /run/netns; EPERM: no CAP_SYS_ADMIN over it).
#pragma once

#include <string>

namespace fabriclab {

class ScopedNetns {
 public:
  // By name, as `ip netns` knows it (/run/netns/NAME). Empty name: no-op.
  explicit ScopedNetns(const std::string& name);
  // By an open namespace fd (not owned). fd < 0: no-op.
  explicit ScopedNetns(int netns_fd);
  ~ScopedNetns();

  ScopedNetns(const ScopedNetns&) = delete;
  ScopedNetns& operator=(const ScopedNetns&) = delete;

 private:
  void enter(int target_fd, const std::string& what);
  int original_fd_ = -1;
};

// Opens /run/netns/NAME (O_RDONLY|O_CLOEXEC); throws with the reason if absent.
int open_netns_by_name(const std::string& name);

}  // namespace fabriclab
