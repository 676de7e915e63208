#include "common/program_on_path.h"

#include <unistd.h>

#include <cstdlib>
#include <sstream>

namespace fabriclab {

bool program_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/sbin:/usr/bin:/sbin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':'))
    if (access((dir + "/" + name).c_str(), X_OK) == 0) return true;
  return false;
}

}  // namespace fabriclab
