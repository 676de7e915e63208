#include "runner/process/process.h"

#include <fcntl.h>
#include <linux/close_range.h>
#include <poll.h>
#include <sched.h>
#include <spdlog/spdlog.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <thread>

#include "common/process_identity.h"

extern char** environ;

namespace fabriclab::runner {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

// What the child reports through the error pipe if it fails before exec.
enum Stage : int {
  kStageNetns = 1,
  kStageStdin,
  kStageStdout,
  kStageStderr,
  kStageCwd,
  kStageExec
};
struct ChildError {
  int stage;
  int err;
};

const char* stage_text(int stage) {
  switch (stage) {
    case kStageNetns:
      return "enter its network namespace";
    case kStageStdin:
      return "open its stdin";
    case kStageStdout:
      return "open its stdout";
    case kStageStderr:
      return "open its stderr";
    case kStageCwd:
      return "change to its working directory";
    case kStageExec:
      return "execute the program";
  }
  return "start";
}

// A Redirect reduced to what the child needs, prepared before fork.
struct PreparedStream {
  int target;  // 0, 1 or 2
  Redirect::Kind kind;
  const char* path;  // points into the LaunchSpec, which outlives the fork
  int flags;
  int fd;
  int stage;
};

PreparedStream prepare(const Redirect& redirect, int target, int stage) {
  PreparedStream stream{target, redirect.kind, redirect.path.c_str(), 0, redirect.fd, stage};
  switch (redirect.kind) {
    case Redirect::Kind::kNull:
      stream.path = "/dev/null";
      stream.flags = target == 0 ? O_RDONLY : O_WRONLY;
      break;
    case Redirect::Kind::kFile:
      stream.flags = O_WRONLY | O_CREAT | O_TRUNC;
      break;
    case Redirect::Kind::kAppend:
      stream.flags = O_WRONLY | O_CREAT | O_APPEND;
      break;
    default:
      break;
  }
  return stream;
}

std::string resolve_program(const std::string& program) {
  if (program == "/proc/self/exe") {
    char path[4096];
    ssize_t n = ::readlink("/proc/self/exe", path, sizeof(path) - 1);
    if (n > 0) return std::string(path, static_cast<size_t>(n));
    return program;
  }
  if (program.find('/') != std::string::npos) return program;
  const char* search = std::getenv("PATH");
  std::string path = search != nullptr ? search : "/usr/local/bin:/usr/bin:/bin";
  size_t begin = 0;
  while (begin <= path.size()) {
    size_t end = path.find(':', begin);
    if (end == std::string::npos) end = path.size();
    std::string dir = path.substr(begin, end - begin);
    std::string candidate = (dir.empty() ? "." : dir) + "/" + program;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    begin = end + 1;
  }
  return "";
}

std::vector<std::string> build_environment(const LaunchSpec& spec) {
  std::vector<std::string> env;
  if (spec.inherit_environment) {
    for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
      std::string variable(*entry);
      std::string name = variable.substr(0, variable.find('='));
      if (spec.env.count(name) == 0) env.push_back(std::move(variable));
    }
  }
  for (const auto& [name, value] : spec.env) env.push_back(name + "=" + value);
  return env;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> result;
  for (std::string& s : strings) result.push_back(s.data());
  result.push_back(nullptr);
  return result;
}

// --- In the child, between fork and exec: async-signal-safe calls only. ---

[[noreturn]] void child_fail(int error_fd, int stage, int err) {
  ChildError report{stage, err};
  (void)!::write(error_fd, &report, sizeof(report));
  ::_exit(127);
}

void child_redirect(const PreparedStream& stream, int error_fd) {
  int fd = -1;
  switch (stream.kind) {
    case Redirect::Kind::kInherit:
      return;
    case Redirect::Kind::kFd:
      fd = stream.fd;
      break;
    default:
      fd = ::open(stream.path, stream.flags | O_CLOEXEC, 0644);
      if (fd < 0) child_fail(error_fd, stream.stage, errno);
  }
  if (fd == stream.target) {
    // Same number: just make sure it survives exec.
    ::fcntl(fd, F_SETFD, 0);
    return;
  }
  if (::dup2(fd, stream.target) < 0) child_fail(error_fd, stream.stage, errno);
  if (stream.kind != Redirect::Kind::kFd) ::close(fd);
}

[[noreturn]] void run_child(pid_t parent, int go_fd, int error_fd, int netns_fd,
                            const PreparedStream (&streams)[3], const char* cwd,
                            const char* program, char* const* argv, char* const* envp) {
  ::setpgid(0, 0);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(127);  // the runner died before prctl
  // Start from a clean slate: default dispositions (the runner ignores or
  // handles some signals), nothing blocked.
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  for (int signal = 1; signal < NSIG; ++signal) ::sigaction(signal, &default_action, nullptr);
  sigset_t none;
  ::sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  // Wait until the parent has recorded us in the ledger (EOF: it gave up).
  char go = 0;
  ssize_t n;
  do {
    n = ::read(go_fd, &go, 1);
  } while (n < 0 && errno == EINTR);
  if (n != 1) ::_exit(127);
  ::close(go_fd);
  if (netns_fd >= 0 && ::setns(netns_fd, CLONE_NEWNET) != 0) {
    child_fail(error_fd, kStageNetns, errno);
  }
  for (const PreparedStream& stream : streams) child_redirect(stream, error_fd);
  // Nothing of the runner's leaks into the rank (sockets, the ledger...):
  // every fd above stderr closes on exec, the error pipe included.
  ::syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC);
  if (cwd[0] != '\0' && ::chdir(cwd) != 0) child_fail(error_fd, kStageCwd, errno);
  ::execve(program, argv, envp);
  child_fail(error_fd, kStageExec, errno);
}

}  // namespace

Process Process::launch(const LaunchSpec& spec, Ledger* ledger) {
  const std::string label =
      spec.label.empty() ? (spec.argv.empty() ? "?" : spec.argv[0]) : spec.label;
  auto failure = [&label](const std::string& why) {
    return std::runtime_error("cannot start " + label + ": " + why);
  };
  if (spec.argv.empty()) throw failure("no program given (empty argv)");
  const std::string program = resolve_program(spec.argv[0]);
  if (program.empty()) throw failure("'" + spec.argv[0] + "' not found in PATH");

  // Everything the child needs, prepared now: after fork it may not allocate.
  std::vector<std::string> argv_strings = spec.argv;
  std::vector<char*> argv = pointers(argv_strings);
  LaunchSpec marked;
  const LaunchSpec* effective = &spec;
  if (ledger != nullptr) {
    marked = spec;
    marked.env[kRunIdEnvironmentVariable] = ledger->run_id();
    effective = &marked;
  }
  std::vector<std::string> env_strings = build_environment(*effective);
  std::vector<char*> envp = pointers(env_strings);
  const PreparedStream streams[3] = {prepare(spec.stdin_stream, 0, kStageStdin),
                                     prepare(spec.stdout_stream, 1, kStageStdout),
                                     prepare(spec.stderr_stream, 2, kStageStderr)};
  int go[2];
  int error[2];
  if (::pipe2(go, O_CLOEXEC) != 0) throw failure(std::string("pipe: ") + std::strerror(errno));
  if (::pipe2(error, O_CLOEXEC) != 0) {
    int err = errno;
    ::close(go[0]);
    ::close(go[1]);
    throw failure(std::string("pipe: ") + std::strerror(err));
  }
  const pid_t parent = ::getpid();
  const pid_t child = ::fork();
  if (child < 0) {
    int err = errno;
    for (int fd : {go[0], go[1], error[0], error[1]}) ::close(fd);
    throw failure(std::string("fork: ") + std::strerror(err));
  }
  if (child == 0) {
    ::close(go[1]);
    ::close(error[0]);
    run_child(parent, go[0], error[1], spec.netns_fd, streams, spec.cwd.c_str(), program.c_str(),
              argv.data(), envp.data());
  }
  ::close(go[0]);
  ::close(error[1]);
  ::setpgid(child, child);  // also here, so the group exists before we signal it

  Process process;
  process.pid_ = child;
  process.label_ = label;
  auto abandon = [&] {
    ::close(go[1]);  // EOF: the child exits without running anything
    ::close(error[0]);
    int status = 0;
    ::waitpid(child, &status, 0);
    process.pid_ = -1;
  };
  if (ledger != nullptr) {
    try {
      process.ledger_entry_ =
          ledger->record({{"kind", "process"},
                          {"pid", child},
                          {"start_ticks", process_start_ticks(child).value_or(0)},
                          {"pgid", child},
                          {"label", label},
                          {"argv0", program},
                          {"netns", spec.netns_label}});
      process.ledger_ = ledger;
    } catch (...) {
      abandon();
      throw;
    }
  }
  (void)!::write(go[1], "g", 1);
  ::close(go[1]);
  // EOF (the pipe closed on exec) means the program runs; a report means it
  // never did.
  ChildError report{0, 0};
  ssize_t n;
  do {
    n = ::read(error[0], &report, sizeof(report));
  } while (n < 0 && errno == EINTR);
  ::close(error[0]);
  if (n == static_cast<ssize_t>(sizeof(report))) {
    int status = 0;
    ::waitpid(child, &status, 0);
    process.status_ = ExitStatus::from_wait_status(status);
    std::string what = std::string(stage_text(report.stage)) + ": " + std::strerror(report.err);
    if (report.stage == kStageExec) what = "execute " + program + ": " + std::strerror(report.err);
    if (report.stage == kStageNetns) what += " (namespace '" + spec.netns_label + "')";
    throw failure(what);  // `process` forgets the ledger entry as it goes
  }
  process.pidfd_ = static_cast<int>(::syscall(SYS_pidfd_open, child, 0));
  spdlog::debug("started {} (pid {}{}): {}", label, child,
                spec.netns_label.empty() ? "" : ", netns " + spec.netns_label, program);
  return process;
}

Process::~Process() {
  if (running()) {
    spdlog::debug("stopping {} (pid {}) as its owner goes away", label_, pid_);
    terminate(kDefaultGrace);
  }
  release();
}

Process::Process(Process&& other) noexcept { *this = std::move(other); }

Process& Process::operator=(Process&& other) noexcept {
  if (this != &other) {
    if (running()) terminate(kDefaultGrace);
    release();
    pid_ = other.pid_;
    pidfd_ = other.pidfd_;
    label_ = std::move(other.label_);
    status_ = other.status_;
    ledger_ = other.ledger_;
    ledger_entry_ = other.ledger_entry_;
    other.pid_ = -1;
    other.pidfd_ = -1;
    other.status_.reset();
    other.ledger_ = nullptr;
  }
  return *this;
}

void Process::release() {
  if (pidfd_ >= 0) ::close(pidfd_);
  pidfd_ = -1;
  if (ledger_ != nullptr) ledger_->forget(ledger_entry_);
  ledger_ = nullptr;
}

void Process::reap(int wait_status) {
  status_ = ExitStatus::from_wait_status(wait_status);
  release();
}

std::optional<ExitStatus> Process::poll() {
  if (!running()) return status_;
  siginfo_t info{};
  // WNOWAIT: look without reaping, so the group id cannot be reused while we
  // kill whatever the leader left behind in its group.
  if (::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) != 0) {
    if (errno == ECHILD) {  // reaped by someone else's waitpid(-1): status unknown
      status_ = ExitStatus{};
      release();
    }
    return status_;
  }
  if (info.si_pid == 0) return std::nullopt;
  ::kill(-pid_, SIGKILL);
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  reap(status);
  return status_;
}

std::optional<ExitStatus> Process::wait_for(std::chrono::milliseconds timeout) {
  const auto deadline = steady_clock::now() + timeout;
  for (;;) {
    if (auto status = poll()) return status;
    // Rounded up: never give up before the deadline.
    auto remaining = std::chrono::ceil<milliseconds>(deadline - steady_clock::now());
    if (remaining.count() <= 0) return std::nullopt;
    if (pidfd_ >= 0) {
      pollfd ready{pidfd_, POLLIN, 0};
      ::poll(&ready, 1, static_cast<int>(std::min<long>(remaining.count(), 1000)));
    } else {
      std::this_thread::sleep_for(std::min(remaining, milliseconds(10)));
    }
  }
}

ExitStatus Process::wait() {
  for (;;) {
    if (auto status = wait_for(std::chrono::hours(1))) return *status;
  }
}

void Process::signal(int signal) {
  if (running()) ::kill(-pid_, signal);
}

ExitStatus Process::terminate(std::chrono::milliseconds grace) {
  if (!running()) return status_.value_or(ExitStatus{});
  signal(SIGTERM);
  if (auto status = wait_for(grace)) return *status;
  spdlog::debug("{} (pid {}) did not stop within {} ms of SIGTERM: SIGKILL", label_, pid_,
                grace.count());
  signal(SIGKILL);
  return wait();
}

void terminate_all(std::vector<Process>& processes, std::chrono::milliseconds grace) {
  for (Process& process : processes) process.signal(SIGTERM);
  const auto deadline = steady_clock::now() + grace;
  for (Process& process : processes) {
    auto remaining = std::chrono::duration_cast<milliseconds>(deadline - steady_clock::now());
    process.wait_for(std::max(remaining, milliseconds(0)));
  }
  for (Process& process : processes) process.signal(SIGKILL);
  for (Process& process : processes) {
    if (process.running()) process.wait();
  }
}

}  // namespace fabriclab::runner
