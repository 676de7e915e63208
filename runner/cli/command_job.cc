#include "runner/cli/command_job.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "common/build_paths.h"
#include "trainer/wire_bytes.h"

namespace fabriclab::cli {
namespace {

namespace fs = std::filesystem;

// The fd the command writes its step lines to: 3, the first after the
// standard streams, so that a shell script can say `>&3`.
constexpr int kStepsFd = 3;
constexpr int kMetricsVersion = 2;  // doc/metrics.md

double unix_now_s() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

int env_int(const char* name, int fallback) {
  const char* text = std::getenv(name);
  return text && *text ? std::atoi(text) : fallback;
}

class EventWriter {
 public:
  EventWriter(const std::string& path, int rank) : out_(path, std::ios::app), rank_(rank) {
    if (!out_) throw std::runtime_error("cannot open " + path + " for writing");
  }
  void write(const std::string& kind, nlohmann::json fields) {
    fields["v"] = kMetricsVersion;
    fields["event"] = kind;
    fields["rank"] = rank_;
    if (!fields.contains("ts") || !fields["ts"].is_number()) fields["ts"] = unix_now_s();
    out_ << fields.dump() << '\n';
    out_.flush();
  }

 private:
  std::ofstream out_;
  int rank_;
};

// Turns the command's step lines into step events, with the lab
// interface's bytes since the line before.
class StepRelay {
 public:
  StepRelay(EventWriter& writer, trainer::WireBytes& wire, double launched_s)
      : writer_(writer), wire_(wire), previous_s_(launched_s) {}

  void take(const char* data, size_t size) {
    pending_.append(data, size);
    for (size_t newline; (newline = pending_.find('\n')) != std::string::npos;) {
      line(pending_.substr(0, newline));
      pending_.erase(0, newline + 1);
    }
  }
  // At the end: a last line without its newline still counts.
  void finish() {
    if (!pending_.empty()) line(pending_);
    pending_.clear();
  }
  // A command that reported no step: the whole job as its one step, so
  // that the scenario still has a wall time (and bytes) to compare.
  void whole_job(double launched_unix_s) {
    const double ms = (unix_now_s() - launched_unix_s) * 1000;
    line(nlohmann::json{{"step", 1}, {"step_ms", ms}, {"whole_job", true}}.dump());
  }
  int64_t last_step() const { return last_step_; }
  double first_step_start() const { return first_step_start_; }
  double last_step_end() const { return last_step_end_; }

 private:
  void line(const std::string& text) {
    if (text.find_first_not_of(" \t\r") == std::string::npos) return;
    nlohmann::json fields = nlohmann::json::parse(text, nullptr, false);
    const bool step_ok = fields.is_object() && fields.contains("step") &&
                         fields["step"].is_number_integer() && fields["step"].get<int64_t>() >= 1;
    bool ok = step_ok && fields.value("event", std::string("step")) == "step";
    // The fields the report computes with must be numbers when given.
    for (const char* key : {"ts", "step_ms", "comm_ms", "compute_ms", "loss", "bytes", "samples"})
      ok = ok && (!fields.contains(key) || fields[key].is_number());
    if (!ok) {
      std::fprintf(stderr,
                   "fabriclab job: skipped a line on FABRICLAB_STEPS_FD that is not a step "
                   "report (a JSON object with an integer \"step\" >= 1 and numbers for "
                   "ts, step_ms, comm_ms, compute_ms, loss, bytes, samples): %.120s\n",
                   text.c_str());
      return;
    }
    const double now = unix_now_s();
    // What the report needs of every step: its time (since the report
    // before, when the command does not time it) and its wait (none said).
    if (!fields.contains("step_ms")) fields["step_ms"] = (now - previous_s_) * 1000;
    if (!fields.contains("comm_ms")) fields["comm_ms"] = 0.0;
    previous_s_ = now;
    if (!fields.contains("tx_bytes")) fields.update(wire_.since_start());
    wire_.start();
    writer_.write("step", fields);
    if (last_step_ == 0) first_step_start_ = now - fields.value("step_ms", 0.0) / 1000;
    last_step_ = fields["step"].get<int64_t>();
    last_step_end_ = now;
  }

  EventWriter& writer_;
  trainer::WireBytes& wire_;
  double previous_s_;  // the last step line's arrival, or the launch
  std::string pending_;
  int64_t last_step_ = 0;
  double first_step_start_ = 0;
  double last_step_end_ = 0;
};

void prepend_python_path() {
  const std::string dir = python_helper_dir();
  const char* old = std::getenv("PYTHONPATH");
  const std::string value = old && *old ? dir + ":" + old : dir;
  ::setenv("PYTHONPATH", value.c_str(), 1);
}

// Never returns: the command, or 127 with a line saying why.
[[noreturn]] void exec_command(const std::vector<std::string>& argv, int steps_write_fd, pid_t relay) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != relay) ::_exit(127);  // the relay died before prctl
  if (steps_write_fd == kStepsFd) {
    ::fcntl(kStepsFd, F_SETFD, 0);  // keep it across exec
  } else if (::dup2(steps_write_fd, kStepsFd) < 0) {
    std::fprintf(stderr, "fabriclab job: cannot set up fd %d: %s\n", kStepsFd, std::strerror(errno));
    ::_exit(127);
  }
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  ::execvp(args[0], args.data());
  std::fprintf(stderr, "fabriclab job: cannot run '%s': %s\n", args[0], std::strerror(errno));
  ::_exit(127);
}

int exit_code_of(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) {
    std::fprintf(stderr, "fabriclab job: the command was ended by signal %d (%s)\n",
                 WTERMSIG(status), strsignal(WTERMSIG(status)));
    return 128 + WTERMSIG(status);
  }
  return 1;
}

}  // namespace

std::string python_helper_dir() {
  if (const char* env = std::getenv("FABRICLAB_PYTHON"); env && *env) return env;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path prefix = exe.parent_path().parent_path();
    for (const fs::path& candidate : {prefix / "trainer/python", prefix / "share/fabriclab/python"})
      if (fs::is_regular_file(candidate / "fabriclab_metrics.py")) return candidate.string();
  }
  return std::string(build_paths::source_dir()) + "/trainer/python";
}

int run_command_job(const CommandJobOptions& options) {
  if (options.argv.empty()) throw std::invalid_argument("fabriclab job: no command after --");
  const int rank = env_int("RANK", 0);
  EventWriter writer(options.metrics_path, rank);

  const char* bind = std::getenv("FABRICLAB_BIND_ADDR");
  const std::string device = trainer::lab_interface("", bind ? bind : "");
  if (!device.empty() && !std::getenv("GLOO_SOCKET_IFNAME"))
    ::setenv("GLOO_SOCKET_IFNAME", device.c_str(), 1);
  ::setenv("FABRICLAB_STEPS_FD", std::to_string(kStepsFd).c_str(), 1);
  ::setenv("FABRICLAB_STEPS_FILE", ("/dev/fd/" + std::to_string(kStepsFd)).c_str(), 1);
  prepend_python_path();

  nlohmann::json start = {{"world_size", env_int("WORLD_SIZE", 1)},
                          {"steps", options.planned_steps},
                          {"command", options.argv}};
  if (!device.empty()) start["net_device"] = device;
  writer.write("start", start);
  const double launched = unix_now_s();

  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0)
    throw std::runtime_error(std::string("fabriclab job: pipe: ") + std::strerror(errno));
  std::fflush(nullptr);
  const pid_t relay = ::getpid();
  const pid_t child = ::fork();
  if (child < 0) throw std::runtime_error(std::string("fabriclab job: fork: ") + std::strerror(errno));
  if (child == 0) exec_command(options.argv, pipe_fds[1], relay);
  ::close(pipe_fds[1]);

  trainer::WireBytes wire(device);
  wire.start();
  StepRelay steps(writer, wire, launched);
  char buffer[4096];
  bool pipe_open = true;
  int status = 0;
  while (true) {
    if (pipe_open) {
      pollfd p{pipe_fds[0], POLLIN, 0};
      if (::poll(&p, 1, 200) > 0) {
        const ssize_t n = ::read(pipe_fds[0], buffer, sizeof buffer);
        if (n > 0) steps.take(buffer, static_cast<size_t>(n));
        if (n == 0) pipe_open = false;
      }
    }
    const pid_t done = ::waitpid(child, &status, pipe_open ? WNOHANG : 0);
    if (done == child) break;
    if (done < 0 && errno != EINTR) throw std::runtime_error(std::string("fabriclab job: waitpid: ") + std::strerror(errno));
  }
  // What the command wrote just before it ended (a process it left behind
  // may still hold the pipe: read what is there, do not wait for EOF).
  ::fcntl(pipe_fds[0], F_SETFL, O_NONBLOCK);
  for (ssize_t n; (n = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0;)
    steps.take(buffer, static_cast<size_t>(n));
  steps.finish();
  ::close(pipe_fds[0]);

  const int code = exit_code_of(status);
  if (code == 0) {
    if (steps.last_step() == 0) steps.whole_job(launched);
    const double begin = steps.last_step() > 0 ? steps.first_step_start() : launched;
    const double end = steps.last_step() > 0 ? steps.last_step_end() : unix_now_s();
    writer.write("final", {{"steps", steps.last_step()}, {"wall_s", end - begin}});
  }
  return code;
}

}  // namespace fabriclab::cli
