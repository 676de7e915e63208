#include "common/uid_map.h"

#include <unistd.h>

#include <fstream>
#include <string>

namespace fabriclab {

bool in_initial_user_namespace() {
  std::ifstream in("/proc/self/uid_map");
  long inside = -1, outside = -1, count = -1;
  in >> inside >> outside >> count;
  std::string more;
  in >> more;
  return inside == 0 && outside == 0 && count == 4294967295L && more.empty();
}

uid_t host_uid() {
  std::ifstream in("/proc/self/uid_map");
  long inside = -1, outside = -1, count = -1;
  // Look for the line that maps our uid; without a map, getuid() is it.
  const long own = static_cast<long>(::getuid());
  while (in >> inside >> outside >> count) {
    if (own >= inside && own < inside + count) return static_cast<uid_t>(outside + own - inside);
  }
  return ::getuid();
}

}  // namespace fabriclab
