#include "runner/topology/network_namespace.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <sched.h>
#include <spdlog/spdlog.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <thread>

#include "runner/topology/user_namespace.h"

namespace fabriclab::runner {
namespace {

constexpr const char* kNetnsDir = "/run/netns";

std::string errno_text(int err) { return std::strerror(err); }

void check_name(const std::string& name) {
  if (name.empty() || name.size() > 64 || name.find('/') != std::string::npos || name == "." ||
      name == "..") {
    throw std::runtime_error("network namespace name '" + name +
                             "': expected 1-64 characters without '/'");
  }
}

struct Unshared {
  int fd = -1;
  std::string error;  // empty on success
};

// unshare(CLONE_NEWNET) moves only the calling thread, so a short-lived
// helper thread creates the namespace and the rest of the process (and the
// caller's thread) never leaves its own.
Unshared unshare_in_helper_thread(const std::string& mount_path) {
  Unshared result;
  std::thread helper([&result, &mount_path] {
    if (::unshare(CLONE_NEWNET) != 0) {
      int err = errno;
      result.error = "unshare(CLONE_NEWNET): " + errno_text(err) +
                     (err == EPERM ? " (needs CAP_SYS_ADMIN: run as root, or as a user where "
                                     "user namespaces are allowed)"
                                   : "");
      return;
    }
    result.fd = ::open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
    if (result.fd < 0) {
      result.error = "open /proc/thread-self/ns/net: " + errno_text(errno);
      return;
    }
    if (!mount_path.empty() &&
        ::mount("/proc/thread-self/ns/net", mount_path.c_str(), "none", MS_BIND, nullptr) != 0) {
      result.error = "bind-mount it at " + mount_path + ": " + errno_text(errno);
    }
  });
  helper.join();
  return result;
}

}  // namespace

NetworkNamespace NetworkNamespace::create(const std::string& name, const std::string& mount_dir) {
  check_name(name);
  NetworkNamespace ns;
  ns.name_ = name;
  std::string path;
  if (!mount_dir.empty()) {
    path = mount_dir + "/" + name;
    // O_EXCL: an existing entry is someone else's namespace (or a leftover
    // `fabriclab cleanup` should remove): never take it over.
    int file = ::open(path.c_str(), O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0);
    if (file < 0) {
      int err = errno;
      throw std::runtime_error("network namespace '" + name + "': cannot create " + path + ": " +
                               errno_text(err) +
                               (err == EEXIST ? " (a leftover of an earlier run? try `fabriclab "
                                                "cleanup`)"
                                              : ""));
    }
    ::close(file);
  }
  Unshared made = unshare_in_helper_thread(path);
  if (!made.error.empty()) {
    if (made.fd >= 0) ::close(made.fd);
    if (!path.empty()) ::unlink(path.c_str());
    throw std::runtime_error("network namespace '" + name + "': " + made.error);
  }
  ns.fd_ = made.fd;
  ns.path_ = path;
  struct stat st {};
  if (::fstat(ns.fd_, &st) == 0) ns.inode_ = st.st_ino;
  spdlog::debug("created network namespace {} (net:[{}]){}", name, ns.inode_,
                path.empty() ? "" : " at " + path);
  return ns;
}

NetworkNamespace::~NetworkNamespace() { destroy(); }

NetworkNamespace::NetworkNamespace(NetworkNamespace&& other) noexcept { *this = std::move(other); }

NetworkNamespace& NetworkNamespace::operator=(NetworkNamespace&& other) noexcept {
  if (this != &other) {
    destroy();
    name_ = std::move(other.name_);
    path_ = std::move(other.path_);
    fd_ = other.fd_;
    inode_ = other.inode_;
    other.fd_ = -1;
    other.path_.clear();
    other.inode_ = 0;
  }
  return *this;
}

void NetworkNamespace::destroy() {
  if (!path_.empty()) {
    // MNT_DETACH: a process still inside keeps the namespace alive, the name
    // goes now (as `ip netns delete`).
    if (::umount2(path_.c_str(), MNT_DETACH) != 0 && errno != EINVAL && errno != ENOENT) {
      spdlog::warn("network namespace {}: cannot unmount {}: {}", name_, path_, errno_text(errno));
    }
    if (::unlink(path_.c_str()) != 0 && errno != ENOENT) {
      spdlog::warn("network namespace {}: cannot remove {}: {}", name_, path_, errno_text(errno));
    }
    path_.clear();
  }
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
    spdlog::debug("released network namespace {}", name_);
  }
}

std::string netns_mount_dir() {
  if (::geteuid() == 0 && in_initial_user_namespace()) {
    if (::mkdir(kNetnsDir, 0755) != 0 && errno != EEXIST) {
      spdlog::warn("cannot create {}: {}; namespaces will have no names", kNetnsDir,
                   errno_text(errno));
      return "";
    }
    // As `ip netns add`: make /run/netns a shared mount point, so namespaces
    // mounted there are visible in other mount namespaces too (e.g. to a
    // student's `ip netns exec` started from elsewhere).
    if (::mount("", kNetnsDir, "none", MS_SHARED | MS_REC, nullptr) != 0 && errno == EINVAL) {
      if (::mount(kNetnsDir, kNetnsDir, "none", MS_BIND | MS_REC, nullptr) == 0) {
        (void)::mount("", kNetnsDir, "none", MS_SHARED | MS_REC, nullptr);
      }
    }
    return kNetnsDir;
  }
  struct stat st {};
  if (::stat(kNetnsDir, &st) == 0 && S_ISDIR(st.st_mode) && ::access(kNetnsDir, W_OK) == 0) {
    return kNetnsDir;
  }
  return "";
}

std::string remove_netns_mount(const std::string& path, ino_t expected_inode, bool dry_run) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    return "network namespace " + path + ": already gone";
  }
  struct statfs fs {};
  bool is_namespace = ::statfs(path.c_str(), &fs) == 0 && fs.f_type == NSFS_MAGIC;
  if (is_namespace && expected_inode != 0 && st.st_ino != expected_inode) {
    return "network namespace " + path + ": kept, it is now another namespace (net:[" +
           std::to_string(st.st_ino) + "], recorded net:[" + std::to_string(expected_inode) + "])";
  }
  if (dry_run) return "network namespace " + path + ": would remove";
  if (::umount2(path.c_str(), MNT_DETACH) != 0 && errno != EINVAL) {
    throw std::runtime_error("network namespace " + path +
                             ": cannot unmount: " + errno_text(errno));
  }
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
    throw std::runtime_error("network namespace " + path + ": cannot remove: " + errno_text(errno));
  }
  return "network namespace " + path + ": removed";
}

}  // namespace fabriclab::runner
