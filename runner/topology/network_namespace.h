// One network namespace that this process created, owned by this object.
//
// The namespace is kept alive by an open fd (fd()); when the process runs as
// root in the initial user namespace it is also bind-mounted at
// <mount_dir>/<name> (normally /run/netns/<name>), exactly as `ip netns add`
// does, so students can `ip netns exec <name> ...` into a running lab.
//
// Lifetime: destroying the object unmounts and unlinks the bind mount (if
// any) and closes the fd. The kernel frees the namespace -- and every link,
// address and qdisc inside it -- when the last fd, mount and process in it are
// gone. Movable, not copyable. Not thread-safe.
//
// Errors: std::runtime_error naming the namespace and the failing step.
#pragma once

#include <sys/types.h>

#include <string>

namespace fabriclab::runner {

class NetworkNamespace {
 public:
  // Creates a fresh, empty network namespace (only `lo`, down). If
  // `mount_dir` is not empty, bind-mounts it at mount_dir/name; an existing
  // entry of that name is an error (never reused: it belongs to someone else).
  static NetworkNamespace create(const std::string& name, const std::string& mount_dir);

  NetworkNamespace() = default;
  ~NetworkNamespace();
  NetworkNamespace(NetworkNamespace&& other) noexcept;
  NetworkNamespace& operator=(NetworkNamespace&& other) noexcept;
  NetworkNamespace(const NetworkNamespace&) = delete;
  NetworkNamespace& operator=(const NetworkNamespace&) = delete;

  const std::string& name() const { return name_; }
  // Open O_RDONLY|O_CLOEXEC fd on the namespace; valid while this object lives.
  int fd() const { return fd_; }
  // Bind-mount path ("/run/netns/<name>") or "" if not mounted.
  const std::string& path() const { return path_; }
  // The namespace's inode number (as in /proc/<pid>/ns/net -> net:[inode]);
  // tells this namespace apart from a later one of the same name.
  ino_t inode() const { return inode_; }

  // Removes the bind mount and closes the fd now (what the destructor does).
  // Errors are logged, not thrown: teardown continues with the next object.
  void destroy();

 private:
  std::string name_;
  std::string path_;
  int fd_ = -1;
  ino_t inode_ = 0;
};

// Where namespaces get their names, prepared for use, or "" if names are not
// available: as root in the initial user namespace, /run/netns (created and
// made a shared mount point as `ip netns add` does, so mounts made there are
// seen by other mount namespaces); inside a user namespace, /run/netns only if
// it is a writable directory (enter_rootless_namespace_if_needed() mounts a
// private tmpfs there when it can). Without names, use the fds.
std::string netns_mount_dir();

// Removes a bind mount left at `path` by an earlier run -- only if it still
// refers to the namespace with inode `expected_inode` (0: do not check).
// Returns a sentence saying what happened (removed, absent, or kept because
// it now belongs to another namespace). Used by `fabriclab cleanup`.
std::string remove_netns_mount(const std::string& path, ino_t expected_inode, bool dry_run);

}  // namespace fabriclab::runner
