#include "tests/support/kernel_state.h"

#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include <chrono>
#include <fstream>
#include <sstream>

#include "tests/support/child_process.h"

namespace fabriclab::testing {
namespace {

std::vector<std::string> numeric_entries(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* entry = ::readdir(d)) {
      const std::string name = entry->d_name;
      if (!name.empty() && name.find_first_not_of("0123456789") == std::string::npos)
        names.push_back(name);
    }
    ::closedir(d);
  }
  return names;
}

std::string read_link(const std::string& path) {
  char target[256];
  const ssize_t n = ::readlink(path.c_str(), target, sizeof(target) - 1);
  return n > 0 ? std::string(target, static_cast<size_t>(n)) : "";
}

// "net:[4026532281]" as an nsfs link or a mountinfo root names namespace 4026532281.
std::string ns_text(ino_t inode) { return "net:[" + std::to_string(inode) + "]"; }

// argv run in the namespace at `netns_path` ("" = here); its stdout+stderr.
std::string run_in(const std::string& netns_path, std::vector<std::string> argv) {
  if (!netns_path.empty()) argv.insert(argv.begin(), {"/usr/bin/nsenter", "--net=" + netns_path});
  return run_command(argv, {}, std::chrono::seconds(20)).output;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(line);
  return lines;
}

}  // namespace

ProcessIdentity identify_process(pid_t pid, bool with_zombie) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return {};
  // Fields after the command name (which may hold spaces): state is field 3,
  // starttime field 22.
  const size_t close = stat.rfind(')');
  if (close == std::string::npos) return {};
  std::istringstream fields(stat.substr(close + 2));
  std::string field;
  std::vector<std::string> rest;
  while (fields >> field) rest.push_back(field);
  if (rest.size() < 20 || rest[0] == "X" || (rest[0] == "Z" && !with_zombie)) return {};
  return {pid, std::stoull(rest[19])};
}

bool process_alive(const ProcessIdentity& process) {
  const ProcessIdentity now = identify_process(process.pid);
  return now.pid == process.pid && now.start_ticks == process.start_ticks;
}

std::vector<pid_t> children_of(pid_t pid, bool with_zombies) {
  std::vector<pid_t> children;
  for (const std::string& name : numeric_entries("/proc")) {
    std::ifstream in("/proc/" + name + "/stat");
    std::string stat;
    if (!std::getline(in, stat)) continue;
    const size_t close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream fields(stat.substr(close + 2));
    std::string state;
    pid_t parent = -1;
    fields >> state >> parent;
    if (parent == pid && (with_zombies || state != "Z")) children.push_back(std::stoi(name));
  }
  return children;
}

NetnsByInode netns_mounted_in(const std::string& dir, const std::string& prefix) {
  NetnsByInode found;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* entry = ::readdir(d)) {
      const std::string name = entry->d_name;
      if (name == "." || name == ".." || name.rfind(prefix, 0) != 0) continue;
      struct stat st {};
      // A name whose namespace is not mounted (yet, or any more) is an empty
      // file on the directory's own filesystem: not a namespace.
      const std::string path = dir + "/" + name;
      struct stat dir_st {};
      if (::stat(path.c_str(), &st) == 0 && ::stat(dir.c_str(), &dir_st) == 0 &&
          st.st_dev != dir_st.st_dev)
        found[st.st_ino] = path;
    }
    ::closedir(d);
  }
  return found;
}

NetnsByInode netns_of_processes(const std::vector<pid_t>& pids) {
  NetnsByInode found;
  for (pid_t pid : pids) {
    const std::string path = "/proc/" + std::to_string(pid) + "/ns/net";
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) found.emplace(st.st_ino, path);
  }
  return found;
}

ino_t own_netns_inode() {
  struct stat st {};
  return ::stat("/proc/self/ns/net", &st) == 0 ? st.st_ino : 0;
}

uint64_t netns_cookie(const std::string& path) {
#ifdef SO_NETNS_COOKIE
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) return 0;
  const pid_t child = ::fork();
  if (child == 0) {
    // Only system calls here: the parent may have threads.
    ::close(pipe_fds[0]);
    uint64_t cookie = 0;
    socklen_t size = sizeof(cookie);
    const int ns = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (ns >= 0 && ::setns(ns, CLONE_NEWNET) == 0) {
      const int sock = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
      if (sock < 0 || ::getsockopt(sock, SOL_SOCKET, SO_NETNS_COOKIE, &cookie, &size) != 0)
        cookie = 0;
    }
    [[maybe_unused]] ssize_t written = ::write(pipe_fds[1], &cookie, sizeof(cookie));
    ::_exit(0);
  }
  ::close(pipe_fds[1]);
  uint64_t cookie = 0;
  if (child > 0) {
    if (::read(pipe_fds[0], &cookie, sizeof(cookie)) != static_cast<ssize_t>(sizeof(cookie)))
      cookie = 0;
    while (::waitpid(child, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  ::close(pipe_fds[0]);
  return cookie;
#else
  (void)path;
  return 0;
#endif
}

std::vector<std::string> netns_holders(const std::map<ino_t, uint64_t>& namespaces) {
  std::vector<std::string> holders;
  std::map<std::string, uint64_t> wanted;  // "net:[N]" -> cookie
  for (const auto& [inode, cookie] : namespaces) wanted[ns_text(inode)] = cookie;
  // `path` opens the namespace found as `target`: ours unless its cookie
  // says it is another namespace under the same inode number.
  const auto held = [&](const std::string& target, const std::string& path) {
    const auto found = wanted.find(target);
    if (found == wanted.end()) return false;
    if (found->second == 0) return true;
    const uint64_t cookie = netns_cookie(path);
    // 0: gone by now (a process that ended): not held.
    return cookie == found->second;
  };
  std::set<ino_t> mount_namespaces_read;
  for (const std::string& pid : numeric_entries("/proc")) {
    const std::string proc = "/proc/" + pid;
    // Every thread: one may have setns()'d on its own.
    for (const std::string& tid : numeric_entries(proc + "/task")) {
      const std::string path = proc + "/task/" + tid + "/ns/net";
      const std::string target = read_link(path);
      if (held(target, path)) holders.push_back(path + " -> " + target);
    }
    // An open namespace file keeps it alive as well as a process in it.
    for (const std::string& fd : numeric_entries(proc + "/fd")) {
      const std::string path = proc + "/fd/" + fd;
      const std::string target = read_link(path);
      if (held(target, path)) holders.push_back(path + " -> " + target);
    }
    // A bind mount (ip netns add) in this process's mount namespace: the
    // mount's root (4th field) is "net:[N]". Once per mount namespace: every
    // process in it shows the same mounts.
    struct stat mnt {};
    if (::stat((proc + "/ns/mnt").c_str(), &mnt) != 0 ||
        !mount_namespaces_read.insert(mnt.st_ino).second)
      continue;
    std::ifstream mountinfo(proc + "/mountinfo");
    for (std::string line; std::getline(mountinfo, line);) {
      std::istringstream fields(line);
      std::string id, parent, device, root, mount_point;
      fields >> id >> parent >> device >> root >> mount_point;
      // Opened through the process's root: its mount namespace's view.
      if (held(root, proc + "/root" + mount_point))
        holders.push_back(proc + "/mountinfo: " + mount_point + " " + root);
    }
  }
  return holders;
}

std::set<std::string> nft_tables(const std::string& netns_path) {
  std::set<std::string> tables;
  for (const std::string& line : lines_of(run_in(netns_path, {"/usr/sbin/nft", "list", "tables"})))
    if (line.rfind("table ", 0) == 0) tables.insert(line);
  return tables;
}

std::set<std::string> qdiscs(const std::string& netns_path) {
  std::set<std::string> found;
  for (const std::string& line : lines_of(run_in(netns_path, {"/usr/sbin/tc", "qdisc", "show"}))) {
    // "qdisc KIND HANDLE dev IF (root|parent X:Y) refcnt N PARAMETERS..."
    std::istringstream words(line);
    std::string word, kind, handle, dev, parent;
    words >> word >> kind >> handle;
    if (word != "qdisc") continue;
    while (words >> word) {
      if (word == "dev") words >> dev;
      else if (word == "root") parent = "root";
      else if (word == "parent") words >> parent;
      if (!dev.empty() && !parent.empty()) break;
    }
    found.insert("dev " + dev + " " + kind + " " + handle + " " + parent);
  }
  return found;
}

std::set<std::string> added(const std::set<std::string>& before, const std::set<std::string>& now) {
  std::set<std::string> more;
  for (const std::string& line : now)
    if (!before.count(line)) more.insert(line);
  return more;
}

std::string RunState::describe() const {
  std::ostringstream out;
  for (const auto& [inode, path] : namespaces) {
    out << "netns " << inode << " (" << path << ", cookie "
        << (cookies.count(inode) ? cookies.at(inode) : 0) << ")\n";
    for (const std::string& t : tables.count(path) ? tables.at(path) : std::set<std::string>{})
      out << "  " << t << "\n";
    for (const std::string& q : qdiscs.count(path) ? qdiscs.at(path) : std::set<std::string>{})
      out << "  qdisc " << q << "\n";
  }
  for (const ProcessIdentity& p : processes)
    out << "process " << p.pid << " (start " << p.start_ticks << ")\n";
  return out.str();
}

RunState snapshot_run(const NetnsByInode& namespaces, const std::vector<pid_t>& pids) {
  RunState state;
  state.namespaces = namespaces;
  for (const auto& [inode, path] : namespaces) {
    state.cookies[inode] = netns_cookie(path);
    state.tables[path] = nft_tables(path);
    state.qdiscs[path] = qdiscs(path);
  }
  for (pid_t pid : pids) {
    // An ended child its stopped parent has not reaped was there too.
    const ProcessIdentity identity = identify_process(pid, /*with_zombie=*/true);
    if (identity.pid > 0) state.processes.insert(identity);
  }
  return state;
}

}  // namespace fabriclab::testing
