#include "runner/process/exit_status.h"

#include <string.h>  // sigabbrev_np, sigdescr_np (glibc >= 2.32)
#include <sys/wait.h>

namespace fabriclab::runner {

ExitStatus ExitStatus::from_wait_status(int status) {
  ExitStatus result;
  if (WIFEXITED(status)) {
    result.exited = true;
    result.code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.signaled = true;
    result.signal = WTERMSIG(status);
    result.core_dumped = WCOREDUMP(status);
  }
  return result;
}

std::string signal_name(int signal) {
  const char* abbreviation = sigabbrev_np(signal);
  if (abbreviation == nullptr) return "signal " + std::to_string(signal);
  return std::string("SIG") + abbreviation;
}

std::string ExitStatus::describe() const {
  if (exited) return "exited with code " + std::to_string(code);
  if (signaled) {
    std::string text = "killed by signal " + std::to_string(signal) + " (" + signal_name(signal);
    if (const char* description = sigdescr_np(signal)) text += std::string(", ") + description;
    text += ")";
    if (core_dumped) text += ", core dumped";
    return text;
  }
  return "did not end (stopped or unknown status)";
}

}  // namespace fabriclab::runner
