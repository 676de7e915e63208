// A fresh directory under the system's temporary folder ($TMPDIR or /tmp),
// removed with everything in it when the object goes -- on every exit path
// that unwinds. For scratch files of commands (benchmark logs, client output).
#pragma once

#include <filesystem>
#include <string>

namespace fabriclab {

class TempDir {
 public:
  // Creates <tmp>/<prefix>-XXXXXX; throws std::runtime_error if it cannot.
  explicit TempDir(const std::string& prefix);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  // The path of `name` inside the directory.
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

}  // namespace fabriclab
