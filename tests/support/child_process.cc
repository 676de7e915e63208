#include "tests/support/child_process.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace fabriclab::testing {

ChildProcess::ChildProcess(const std::vector<std::string>& argv,
                           const std::map<std::string, std::string>& env,
                           const std::string& output_path)
    : output_path_(output_path), start_(std::chrono::steady_clock::now()) {
  // Build everything before fork: only async-signal-safe calls after it.
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<std::string> env_strings;
  for (char** e = environ; *e; ++e) {
    std::string entry(*e);
    if (!env.count(entry.substr(0, entry.find('=')))) env_strings.push_back(entry);
  }
  for (const auto& [key, value] : env) env_strings.push_back(key + "=" + value);
  std::vector<char*> envp;
  for (auto& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);

  const int out = ::open(output_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (out < 0) throw std::runtime_error("cannot open " + output_path);
  pid_ = ::fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    ::dup2(out, STDOUT_FILENO);
    ::dup2(out, STDERR_FILENO);
    ::execve(args[0], args.data(), envp.data());
    ::_exit(127);
  }
  ::close(out);
}

ChildProcess::~ChildProcess() {
  // Not once reaped (by wait() or wait_until_stopped()): the pid may be another's.
  if (pid_ > 0 && !reaped_ && ended_status_ == -1) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
}

void ChildProcess::signal(int sig) {
  if (!reaped_ && ended_status_ == -1) ::kill(pid_, sig);
}

bool ChildProcess::wait_until_stopped(std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!reaped_) {
    int raw = 0;
    const pid_t r = ::waitpid(pid_, &raw, WNOHANG | WUNTRACED);
    if (r == pid_ && WIFSTOPPED(raw)) return true;
    if (r == pid_) {
      // It ended instead (now reaped): keep its status for wait().
      ended_status_ = raw;
      return false;
    }
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

ExitStatus ChildProcess::wait(std::chrono::milliseconds limit) {
  ExitStatus status;
  const auto deadline = start_ + limit;
  while (!reaped_) {
    int raw = ended_status_;
    const pid_t r = ended_status_ != -1 ? pid_ : ::waitpid(pid_, &raw, WNOHANG);
    if (r == pid_) {
      reaped_ = true;
      status.exited = true;
      if (WIFEXITED(raw)) status.code = WEXITSTATUS(raw);
      if (WIFSIGNALED(raw)) status.signal = WTERMSIG(raw);
      break;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
      reaped_ = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  status.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  return status;
}

std::string ChildProcess::output() const { return read_file(output_path_); }

RunResult run_command(const std::vector<std::string>& argv,
                      const std::map<std::string, std::string>& env,
                      std::chrono::milliseconds limit) {
  const std::string dir = make_temp_dir("fabriclab-cmd");
  RunResult result;
  {
    ChildProcess child(argv, env, dir + "/output");
    result.status = child.wait(limit);
    result.output = child.output();
  }
  ::unlink((dir + "/output").c_str());
  ::rmdir(dir.c_str());
  return result;
}

std::string make_temp_dir(const std::string& prefix) {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp ? tmp : "/tmp") + "/" + prefix + "-XXXXXX";
  if (!::mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed for " + pattern);
  return pattern;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace fabriclab::testing
