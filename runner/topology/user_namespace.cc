#include "runner/topology/user_namespace.h"

#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <spdlog/spdlog.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "runner/topology/netns_links.h"

namespace fabriclab::runner {
namespace {

std::string read_first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line)) return "";
  return line;
}

int count_threads() {
  DIR* dir = ::opendir("/proc/self/task");
  if (dir == nullptr) return -1;
  int threads = 0;
  while (dirent* entry = ::readdir(dir)) {
    if (entry->d_name[0] != '.') ++threads;
  }
  ::closedir(dir);
  return threads;
}

// Only open/write/close: also used between fork and _exit.
bool write_file(const char* path, const char* text, size_t length) {
  int fd = ::open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  bool ok = ::write(fd, text, length) == static_cast<ssize_t>(length);
  ::close(fd);
  return ok;
}

struct IdMaps {
  std::string uid_map;
  std::string gid_map;
};

IdMaps own_ids_as_root() {
  return {"0 " + std::to_string(::getuid()) + " 1\n", "0 " + std::to_string(::getgid()) + " 1\n"};
}

// Returns 0 or the errno of the failed step; `step` names it.
int unshare_and_map(int flags, const IdMaps& maps, const char** step) {
  *step = "unshare(CLONE_NEWUSER)";
  if (::unshare(flags) != 0) return errno;
  // setgroups must be denied before an unprivileged process may write gid_map.
  *step = "write /proc/self/setgroups";
  if (!write_file("/proc/self/setgroups", "deny", 4) && errno != ENOENT) return errno;
  *step = "write /proc/self/uid_map";
  if (!write_file("/proc/self/uid_map", maps.uid_map.data(), maps.uid_map.size())) return errno;
  *step = "write /proc/self/gid_map";
  if (!write_file("/proc/self/gid_map", maps.gid_map.data(), maps.gid_map.size())) return errno;
  return 0;
}

// The knobs distributions use to forbid unprivileged user namespaces, with
// their current values, and the remedy.
std::string sysctl_diagnosis() {
  std::ostringstream out;
  std::string clone = read_first_line("/proc/sys/kernel/unprivileged_userns_clone");
  std::string max_ns = read_first_line("/proc/sys/user/max_user_namespaces");
  std::string apparmor = read_first_line("/proc/sys/kernel/apparmor_restrict_unprivileged_userns");
  if (clone == "0") {
    out << " kernel.unprivileged_userns_clone is 0: `sudo sysctl -w "
           "kernel.unprivileged_userns_clone=1` allows them.";
  }
  if (max_ns == "0") {
    out << " user.max_user_namespaces is 0: `sudo sysctl -w user.max_user_namespaces=15000` "
           "allows them.";
  }
  if (apparmor == "1") {
    out << " kernel.apparmor_restrict_unprivileged_userns is 1 (Ubuntu): `sudo sysctl -w "
           "kernel.apparmor_restrict_unprivileged_userns=0` or an AppArmor profile for "
           "fabriclab allows them.";
  }
  if (out.str().empty()) {
    out << " (kernel.unprivileged_userns_clone=" << (clone.empty() ? "n/a" : clone)
        << ", user.max_user_namespaces=" << (max_ns.empty() ? "n/a" : max_ns)
        << "; a container or seccomp profile may also forbid them.)";
  }
  out << " Otherwise run as root (sudo).";
  return out.str();
}

}  // namespace

PrivilegeMode enter_rootless_namespace_if_needed(std::string* why) {
  if (::geteuid() == 0) {
    if (why != nullptr) {
      *why = in_initial_user_namespace()
                 ? "running as root: using the host's namespace API directly"
                 : "running as root of a user namespace: using it as it is";
    }
    return PrivilegeMode::kPrivileged;
  }
  int threads = count_threads();
  if (threads != 1) {
    throw std::logic_error("enter_rootless_namespace_if_needed: called with " +
                           std::to_string(threads) +
                           " threads; the kernel allows a new user namespace only to a "
                           "single-threaded process (call it before anything starts a thread)");
  }
  const uid_t uid = ::getuid();
  const char* step = "";
  int err = unshare_and_map(CLONE_NEWUSER | CLONE_NEWNET | CLONE_NEWNS, own_ids_as_root(), &step);
  if (err != 0) {
    throw std::runtime_error(std::string("not root (uid ") + std::to_string(uid) +
                             ") and cannot enter a user namespace: " + step + ": " +
                             std::strerror(err) + "." + sysctl_diagnosis());
  }
  // Our mounts stay ours: nothing propagates back to the host or around.
  if (::mount("none", "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
    spdlog::debug("rootless: cannot make / private: {}", std::strerror(errno));
  }
  std::string names = "without namespace names (no /run/netns directory)";
  struct stat st {};
  if (::stat("/run/netns", &st) == 0 && S_ISDIR(st.st_mode)) {
    if (::mount("fabriclab-netns", "/run/netns", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
                "mode=0755") == 0) {
      names = "with namespace names on a private /run/netns";
    } else {
      spdlog::debug("rootless: cannot mount tmpfs on /run/netns: {}", std::strerror(errno));
    }
  }
  // The runner now sits in a network namespace of its own; give it loopback.
  NetnsLinks(-1, "runner (rootless)").set_up("lo");
  if (why != nullptr) {
    *why = "not root (uid " + std::to_string(uid) +
           "): entered a user namespace of our own (rootless mode), " + names;
  }
  return PrivilegeMode::kRootless;
}

UserNamespaceCheck check_user_namespaces() {
  UserNamespaceCheck check;
  const IdMaps maps = own_ids_as_root();
  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0) {
    check.detail = std::string("cannot test: pipe: ") + std::strerror(errno);
    return check;
  }
  pid_t child = ::fork();
  if (child < 0) {
    check.detail = std::string("cannot test: fork: ") + std::strerror(errno);
    ::close(report[0]);
    ::close(report[1]);
    return check;
  }
  if (child == 0) {
    // Only system calls on prepared data here: the parent may have threads.
    ::close(report[0]);
    const char* step = "";
    int err = unshare_and_map(CLONE_NEWUSER | CLONE_NEWNET, maps, &step);
    int message[2] = {err, 0};
    (void)!::write(report[1], message, sizeof(message));
    if (err != 0) (void)!::write(report[1], step, std::strlen(step));
    ::_exit(err == 0 ? 0 : 1);
  }
  ::close(report[1]);
  int message[2] = {-1, 0};
  char step[128] = {};
  ssize_t got = ::read(report[0], message, sizeof(message));
  ssize_t step_length = ::read(report[0], step, sizeof(step) - 1);
  ::close(report[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  if (got == static_cast<ssize_t>(sizeof(message)) && message[0] == 0) {
    check.allowed = true;
    check.detail =
        "yes: a user namespace with a network namespace inside can be created "
        "(rootless mode works)";
  } else {
    std::string failed = step_length > 0 ? std::string(step, step_length) : "the test child";
    check.detail = "no: " + failed + ": " +
                   (got > 0 ? std::strerror(message[0]) : std::string("died")) + "." +
                   sysctl_diagnosis();
  }
  return check;
}

}  // namespace fabriclab::runner
