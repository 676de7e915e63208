// Test support: run the real `fabriclab` binary (or any program) as a child
// process with its own environment, output captured to a file, and wait for
// it with a deadline or kill it. Tests use it for ranks-as-processes that a
// test can kill one by one (as Gloo's multiprocess fixture does).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace fabriclab::testing {

struct ExitStatus {
  bool exited = false;   // false: still running after the deadline (then killed)
  int code = -1;         // exit code when it exited normally
  int signal = 0;        // the signal that ended it, else 0
  double seconds = 0;    // from start to end (or to the deadline)
};

class ChildProcess {
 public:
  // Starts argv[0] (a path) with the current environment plus `env`; stdout
  // and stderr both go to `output_path`.
  ChildProcess(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
               const std::string& output_path);
  ~ChildProcess();  // SIGKILLs the child if it still runs
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  void signal(int sig);
  // Waits up to `limit`; if still running then, kills it and reports exited=false.
  ExitStatus wait(std::chrono::milliseconds limit);
  // Waits up to `limit` for the child to stop (SIGSTOP, e.g. FABRICLAB_FAULT_STOP):
  // true once it is stopped; false if it ended first (wait() then reports how)
  // or is still running at `limit`.
  bool wait_until_stopped(std::chrono::milliseconds limit);
  std::string output() const;  // the captured output so far

 private:
  pid_t pid_ = -1;
  bool reaped_ = false;
  int ended_status_ = -1;  // waitpid's status if wait_until_stopped() reaped the child
  std::string output_path_;
  std::chrono::steady_clock::time_point start_;
};

// Runs to completion (or kills at `limit`) and returns status and output.
struct RunResult {
  ExitStatus status;
  std::string output;
};
RunResult run_command(const std::vector<std::string>& argv,
                      const std::map<std::string, std::string>& env = {},
                      std::chrono::milliseconds limit = std::chrono::seconds(60));

// A fresh directory under $TMPDIR, removed by the caller if it wants.
std::string make_temp_dir(const std::string& prefix);

std::string read_file(const std::string& path);

}  // namespace fabriclab::testing
