// Follows a rank's metrics file as the rank appends to it (tail -f), and
// returns the complete lines written since the last call, parsed. A partial
// last line waits for the next call. Not thread-safe.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace fabriclab::runner {

class MetricsTail {
 public:
  explicit MetricsTail(std::string path) : path_(std::move(path)) {}
  // New events; lines that are not JSON are skipped (a rank killed mid-write).
  std::vector<nlohmann::json> read_new();

 private:
  std::string path_;
  std::streamoff offset_ = 0;
  std::string partial_;
};

}  // namespace fabriclab::runner
