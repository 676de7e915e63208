#include "trainer/sched_time.h"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace fabriclab::trainer {

std::optional<SchedTime> parse_schedstat(const std::string& line) {
  std::istringstream in(line);
  unsigned long long on_cpu_ns = 0, queued_ns = 0, slices = 0;
  if (!(in >> on_cpu_ns >> queued_ns >> slices)) return std::nullopt;
  return SchedTime{static_cast<double>(on_cpu_ns) / 1e6, static_cast<double>(queued_ns) / 1e6};
}

std::optional<SchedTime> process_sched_time(const std::string& task_dir) {
  std::error_code error;
  std::filesystem::directory_iterator threads(task_dir, error);
  if (error) return std::nullopt;
  SchedTime sum;
  bool any = false;
  for (const auto& thread : threads) {
    std::ifstream file(thread.path() / "schedstat");
    std::string line;
    if (!std::getline(file, line)) continue;  // the thread ended meanwhile
    const auto one = parse_schedstat(line);
    if (!one) continue;
    sum.on_cpu_ms += one->on_cpu_ms;
    sum.queued_ms += one->queued_ms;
    any = true;
  }
  if (!any) return std::nullopt;
  return sum;
}

}  // namespace fabriclab::trainer
