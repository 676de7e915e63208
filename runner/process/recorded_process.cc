#include "runner/process/recorded_process.h"

#include <dirent.h>
#include <signal.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "common/process_identity.h"
#include "runner/process/process.h"

namespace fabriclab::runner {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

namespace {

// Process group of `pid` from /proc (works for processes of other users).
pid_t process_group_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!in || !std::getline(in, stat)) return -1;
  size_t close = stat.rfind(')');
  if (close == std::string::npos) return -1;
  std::istringstream fields(stat.substr(close + 1));
  std::string state;
  pid_t parent = 0, group = -1;
  fields >> state >> parent >> group;
  return group;
}

bool carries_marker(pid_t pid, const std::string& marker) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/environ", std::ios::binary);
  std::string variable;
  while (std::getline(in, variable, '\0')) {
    if (variable == marker) return true;
  }
  return false;
}

// Live members of process group `group` that carry `marker`.
std::vector<pid_t> marked_group_members(pid_t group, const std::string& marker) {
  std::vector<pid_t> members;
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) return members;
  while (dirent* entry = ::readdir(proc)) {
    char* end = nullptr;
    long pid = std::strtol(entry->d_name, &end, 10);
    if (pid <= 1 || *end != '\0') continue;
    if (process_group_of(static_cast<pid_t>(pid)) != group) continue;
    if (!process_start_ticks(static_cast<pid_t>(pid))) continue;  // zombie
    if (carries_marker(static_cast<pid_t>(pid), marker)) members.push_back(static_cast<pid_t>(pid));
  }
  ::closedir(proc);
  return members;
}

}  // namespace

std::string kill_recorded_process(pid_t pid, uint64_t start_ticks, const std::string& run_id,
                                  const std::string& label, bool dry_run) {
  const std::string name = "process " + label + " (pid " + std::to_string(pid) + ")";
  if (pid <= 1) return name + ": not a process to kill";
  const std::string marker = std::string(kRunIdEnvironmentVariable) + "=" + run_id;
  const bool leader_alive = is_running({pid, start_ticks});
  std::vector<pid_t> members;
  if (!leader_alive) {
    // The group id cannot be trusted alone once the leader is gone (pids are
    // reused), so only processes carrying this run's marker count.
    members = marked_group_members(pid, marker);
    if (members.empty()) return name + ": already gone";
  }
  const std::string what = leader_alive
                               ? "its process group"
                               : std::to_string(members.size()) + " process(es) left in its group";
  if (dry_run) return name + ": would kill " + what;
  if (leader_alive) {
    const pid_t target = process_group_of(pid) == pid ? -pid : pid;
    if (::kill(target, SIGKILL) != 0 && errno != ESRCH) {
      throw std::runtime_error(name + ": cannot kill: " + std::strerror(errno));
    }
  }
  for (pid_t member : members) ::kill(member, SIGKILL);
  // Not our children: their new parent reaps them; wait until gone or zombies.
  const auto deadline = steady_clock::now() + milliseconds(3000);
  auto anything_left = [&] {
    if (leader_alive && is_running({pid, start_ticks})) return true;
    for (pid_t member : members) {
      if (process_start_ticks(member)) return true;
    }
    return false;
  };
  while (anything_left() && steady_clock::now() < deadline) {
    std::this_thread::sleep_for(milliseconds(10));
  }
  if (anything_left()) throw std::runtime_error(name + ": still running 3 s after SIGKILL");
  return name + ": killed " + what;
}

}  // namespace fabriclab::runner
