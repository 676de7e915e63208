#include "common/fault_point.h"

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>

namespace fabriclab {

void fault_point(const char* point) {
  // Read once: the environment does not change during a run.
  static const std::string at = [] {
    const char* value = std::getenv(kFaultAtVariable);
    return std::string(value != nullptr ? value : "");
  }();
  if (at.empty() || at != point) return;
  const std::string line = std::string("fault point ") + point + ": SIGKILL\n";
  // write(2), not a logger: nothing buffered may stand between here and the kill.
  [[maybe_unused]] ssize_t written = ::write(STDERR_FILENO, line.data(), line.size());
  // The test's window: stopped with everything the point made still in
  // place; the kill below lands when the test continues the process.
  const char* stop = std::getenv(kFaultStopVariable);
  if (stop != nullptr && std::strcmp(stop, "1") == 0) ::kill(::getpid(), SIGSTOP);
  ::kill(::getpid(), SIGKILL);
}

}  // namespace fabriclab
