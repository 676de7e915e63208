// How a process ended, decoded from waitpid()'s status, in words a student
// reads in a report ("killed by signal 9 (SIGKILL, Killed)").
#pragma once

#include <string>

namespace fabriclab::runner {

struct ExitStatus {
  bool exited = false;    // ended by exit()/return: `code` is valid
  int code = 0;           // exit code, when exited
  bool signaled = false;  // ended by a signal: `signal` is valid
  int signal = 0;         // signal number, when signaled
  bool core_dumped = false;

  // From a raw waitpid() status.
  static ExitStatus from_wait_status(int status);

  bool success() const { return exited && code == 0; }
  // "exited with code 0", "exited with code 3", "killed by signal 9 (SIGKILL,
  // Killed)", "killed by signal 11 (SIGSEGV, Segmentation fault), core dumped".
  std::string describe() const;
};

// "SIGKILL", or "signal 77" for an unknown number.
std::string signal_name(int signal);

}  // namespace fabriclab::runner
