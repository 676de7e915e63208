// Test helper: reads a metrics JSON Lines file (doc/metrics.md) into events.
#pragma once

#include <nlohmann/json.hpp>

#include <fstream>
#include <string>
#include <vector>

namespace fabriclab::testing {

inline std::vector<nlohmann::json> read_events(const std::string& path,
                                               const std::string& kind = "") {
  std::vector<nlohmann::json> events;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    auto event = nlohmann::json::parse(line);
    if (kind.empty() || event["event"] == kind) events.push_back(event);
  }
  return events;
}

}  // namespace fabriclab::testing
