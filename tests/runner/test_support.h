// Shared helpers for the runner tests: privilege checks with a reason to
// skip, temporary directories, snapshots of the host's network state
// (links, addresses, /run/netns) to prove the tests leave it unchanged, and
// small readers (a JSON file, the message of an InputError).
#pragma once

#include <arpa/inet.h>
#include <dirent.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/input_error.h"
#include "runner/topology/user_namespace.h"
#include "tests/support/ci_skip.h"

namespace fabriclab::runner::testing {

inline nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

// The message of the InputError `action` throws, or "(no InputError)".
inline std::string error_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const InputError& error) {
    return error.what();
  }
  return "(no InputError)";
}

// Empty if the test may create namespaces; otherwise why not (for GTEST_SKIP).
inline std::string why_no_netns_privileges() {
  if (::geteuid() != 0) return "needs root (CAP_NET_ADMIN, CAP_SYS_ADMIN) for network namespaces";
  if (!in_initial_user_namespace()) return "needs to run in the host's user namespace";
  return "";
}

#define SKIP_UNLESS_NETNS_PRIVILEGES()                                         \
  do {                                                                         \
    std::string why = ::fabriclab::runner::testing::why_no_netns_privileges(); \
    if (!why.empty()) SKIP_OR_FAIL_IN_CI(why);                                 \
  } while (0)

// A fresh directory under /tmp, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    char pattern[] = "/tmp/fabriclab-runner-test-XXXXXX";
    path_ = ::mkdtemp(pattern);
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Interface names in the caller's (host) network namespace.
inline std::set<std::string> host_links() {
  std::set<std::string> names;
  if (struct if_nameindex* list = ::if_nameindex()) {
    for (auto* entry = list; entry->if_index != 0; ++entry) names.insert(entry->if_name);
    ::if_freenameindex(list);
  }
  return names;
}

// IPv4 addresses in the caller's (host) network namespace.
inline std::set<std::string> host_ipv4_addresses() {
  std::set<std::string> addresses;
  struct ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return addresses;
  for (auto* entry = list; entry != nullptr; entry = entry->ifa_next) {
    if (entry->ifa_addr == nullptr || entry->ifa_addr->sa_family != AF_INET) continue;
    char text[INET_ADDRSTRLEN];
    auto* in = reinterpret_cast<sockaddr_in*>(entry->ifa_addr);
    ::inet_ntop(AF_INET, &in->sin_addr, text, sizeof(text));
    addresses.insert(text);
  }
  ::freeifaddrs(list);
  return addresses;
}

// Entries of /run/netns whose name starts with `prefix`.
inline std::set<std::string> run_netns_entries(const std::string& prefix = "") {
  std::set<std::string> names;
  if (DIR* dir = ::opendir("/run/netns")) {
    while (dirent* entry = ::readdir(dir)) {
      std::string name = entry->d_name;
      if (name != "." && name != ".." && name.rfind(prefix, 0) == 0) names.insert(name);
    }
    ::closedir(dir);
  }
  return names;
}

// Entries of /run/netns starting with `prefix` that were not in `before`:
// what a run left behind. Not an equality: a case running beside this one
// may remove namespaces of its own meanwhile, which is no leak of ours.
inline std::set<std::string> new_netns_entries(const std::set<std::string>& before,
                                               const std::string& prefix = "fl-") {
  std::set<std::string> added;
  for (const std::string& name : run_netns_entries(prefix))
    if (before.count(name) == 0) added.insert(name);
  return added;
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

inline bool process_exists(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return false;
  size_t close = stat.rfind(')');
  return close != std::string::npos && stat.size() > close + 2 && stat[close + 2] != 'Z';
}

// Polls `done` every 10 ms until it holds. False only after `hang_guard`,
// which stops a hung test and is no bound: how soon `done` holds on a
// shared CPU is not what a test may assert (doc/ci.md).
inline bool eventually(const std::function<bool()>& done,
                       std::chrono::seconds hang_guard = std::chrono::seconds(120)) {
  const auto give_up = std::chrono::steady_clock::now() + hang_guard;
  while (!done()) {
    if (std::chrono::steady_clock::now() > give_up) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

// The least wall time `steps` data-parallel steps can take when one rank's
// packets are held `delay_s` as they arrive at the others: a rank sends step
// i's gradient only once it has step i-1's result, which needed every rank's
// step i-1 data, sent after step i-2's result, which needed the held rank's
// step i-2 data to wait out the delay. So every second step waits for it at
// least once. "At least" cannot fail under load; "slower than clean" could
// (two runs, each at the mercy of the CPU it got: doc/ci.md).
inline double least_wall_s(int steps, double delay_s) { return delay_s * ((steps + 1) / 2); }

// Processes carrying the run's marker in their environment.
inline std::vector<pid_t> marked_processes(const std::string& run_id) {
  std::vector<pid_t> found;
  const std::string marker = "FABRICLAB_RUN_ID=" + run_id + '\0';
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    pid_t pid = std::stoi(name);
    if (!process_exists(pid)) continue;
    if (read_file("/proc/" + name + "/environ").find(marker) != std::string::npos) {
      found.push_back(pid);
    }
  }
  return found;
}

}  // namespace fabriclab::runner::testing
