#include "runner/cleanup/impairment_guardian.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <spdlog/spdlog.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <thread>
#include <vector>

extern char** environ;

namespace fabriclab::runner {

ImpairmentGuardian::ImpairmentGuardian(const std::string& device, const std::string& netns,
                                       const std::string& program) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    throw std::runtime_error(std::string("guardian: pipe: ") + std::strerror(errno));
  std::vector<std::string> args = {program, "cleanup", "--iface", device, "--guard"};
  if (!netns.empty()) args.insert(args.end(), {"--netns", netns});
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[0], STDIN_FILENO);  // dup2 clears CLOEXEC
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);  // its own group: the terminal's Ctrl-C is the runner's
  const int rc = ::posix_spawn(&pid_, argv[0], &actions, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  ::close(fds[0]);
  if (rc != 0) {
    ::close(fds[1]);
    throw std::runtime_error(std::string("cannot start the impairment guardian: ") +
                             std::strerror(rc));
  }
  pipe_write_ = fds[1];
  spdlog::debug("impairment guardian for {}: pid {}", device, pid_);
}

ImpairmentGuardian::~ImpairmentGuardian() {
  ::close(pipe_write_);  // the guardian wakes up, finds nothing of ours, exits
  const auto give_up = std::chrono::steady_clock::now() + kReapTimeout;
  while (std::chrono::steady_clock::now() < give_up) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) != 0) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  spdlog::warn("impairment guardian (pid {}) still running after {} s; left to finish", pid_,
               kReapTimeout.count());
}

void wait_for_runner_to_end() {
  ::signal(SIGINT, SIG_IGN);
  ::signal(SIGHUP, SIG_IGN);
  char buffer[64];
  while (true) {
    const ssize_t n = ::read(STDIN_FILENO, buffer, sizeof buffer);
    if (n == 0) return;
    if (n < 0 && errno != EINTR) return;
  }
}

}  // namespace fabriclab::runner
