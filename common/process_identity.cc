#include "common/process_identity.h"

#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

namespace fabriclab {

std::optional<uint64_t> process_start_ticks(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!in || !std::getline(in, stat)) return std::nullopt;
  // The command name (field 2) is in parentheses and may contain spaces or
  // ')'; fields are counted after the last ')'. Field 3 is the state, field
  // 22 the start time.
  size_t close = stat.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(stat.substr(close + 1));
  std::string state;
  fields >> state;
  if (state == "Z" || state == "X") return std::nullopt;
  std::string skip;
  for (int field = 4; field < 22; ++field) fields >> skip;
  uint64_t start_ticks = 0;
  if (!(fields >> start_ticks)) return std::nullopt;
  return start_ticks;
}

ProcessIdentity self_identity() {
  ProcessIdentity self;
  self.pid = ::getpid();
  self.start_ticks = process_start_ticks(self.pid).value_or(0);
  return self;
}

bool is_running(const ProcessIdentity& process) {
  if (process.pid <= 0) return false;
  std::optional<uint64_t> start = process_start_ticks(process.pid);
  return start && *start == process.start_ticks;
}

}  // namespace fabriclab
