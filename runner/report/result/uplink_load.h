// What a fabric's ToR-spine uplinks carried, from one counters sample's
// bytes per uplink: the total and the uplink that carried the most (the
// first by name among equals). The one computation behind the result row's
// uplink fields (uplinks_part.cc) and the live status line's "hot uplink"
// (runner/scenario/scenario_runner.cc), so the two never disagree.
// Pure function, thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace fabriclab::runner::report {

struct UplinkLoad {
  std::int64_t total_bytes = 0;
  std::optional<std::string> hottest;  // null when no uplink carried a byte
  std::int64_t hottest_bytes = 0;
  std::optional<double> hottest_share;  // hottest_bytes / total_bytes; null when 0
};

// bytes_by_uplink: each uplink's tx + rx bytes, by name ("tor0-spine1").
UplinkLoad uplink_load(const std::map<std::string, std::int64_t>& bytes_by_uplink);

}  // namespace fabriclab::runner::report
