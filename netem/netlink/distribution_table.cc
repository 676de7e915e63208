#include "netem/netlink/distribution_table.h"

#include <sys/stat.h>
#include <cstdlib>
#include <fstream>
#include <stdexcept>

namespace fabriclab::netem::netlink {

namespace {

// tc's MAX_DIST: the most values one table may hold.
constexpr size_t kMaxDist = 16 * 1024;

bool is_file(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

}  // namespace

std::string find_distribution_file(const std::string& name) {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("TC_LIB_DIR")) dirs.push_back(env);
  for (const char* d : {"/usr/lib/x86_64-linux-gnu/tc", "/usr/lib/aarch64-linux-gnu/tc",
                        "/usr/lib/tc", "/usr/lib64/tc", "/usr/share/tc"})
    dirs.push_back(d);
  for (const std::string& d : dirs) {
    std::string path = d + "/" + name + ".dist";
    if (is_file(path)) return path;
  }
  return "";
}

std::vector<int16_t> load_distribution(Distribution d) {
  if (d == Distribution::kNone || d == Distribution::kUniform) return {};
  std::string name = distribution_name(d);
  std::string path = find_distribution_file(name);
  if (path.empty())
    throw std::runtime_error("no distribution table " + name +
                             ".dist (looked in $TC_LIB_DIR, /usr/lib/x86_64-linux-gnu/tc, "
                             "/usr/lib/tc, /usr/lib64/tc); install iproute2 "
                             "(apt install iproute2), which ships them");
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  // Same format and reading as tc's get_distribution(): '#' comment lines,
  // then whitespace-separated integers (strtol base 0), at most kMaxDist.
  std::vector<int16_t> values;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const char* p = line.c_str();
    for (;;) {
      char* end = nullptr;
      long x = std::strtol(p, &end, 0);
      if (end == p) break;
      if (values.size() >= kMaxDist) throw std::runtime_error(path + ": too much data");
      values.push_back(static_cast<int16_t>(x));
      p = end;
    }
  }
  if (values.empty()) throw std::runtime_error(path + ": no data");
  return values;
}

}  // namespace fabriclab::netem::netlink
