#include "common/file_text.h"

#include <fstream>
#include <sstream>

namespace fabriclab {

std::optional<std::string> try_read_file_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string read_file_text(const std::filesystem::path& path) {
  return try_read_file_text(path).value_or("");
}

}  // namespace fabriclab
