#include "runner/report/result/uplink_load.h"

namespace fabriclab::runner::report {

UplinkLoad uplink_load(const std::map<std::string, std::int64_t>& bytes_by_uplink) {
  UplinkLoad load;
  for (const auto& [name, bytes] : bytes_by_uplink) {  // by name: the first wins a tie
    load.total_bytes += bytes;
    if (bytes > load.hottest_bytes) {
      load.hottest_bytes = bytes;
      load.hottest = name;
    }
  }
  if (load.total_bytes > 0)
    load.hottest_share =
        static_cast<double>(load.hottest_bytes) / static_cast<double>(load.total_bytes);
  return load;
}

}  // namespace fabriclab::runner::report
