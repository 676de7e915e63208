#include "trainer/sched_time.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace fabriclab::trainer {
namespace {

// Twice a step, once per thread: plain open/read/close and strtoull, not
// std::filesystem and ifstream, which cost ~15 us per thread here (a step of
// lab 10's tiny model is 2-3 ms; doc/benchmarks.md, "The per-step accounting").
std::optional<SchedTime> read_one(int task_fd, const char* tid) {
  char path[sizeof(dirent::d_name) + 16];  // "<tid>/schedstat"
  std::snprintf(path, sizeof path, "%s/schedstat", tid);
  const int fd = ::openat(task_fd, path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;  // the thread ended meanwhile
  char buf[128];
  const ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) return std::nullopt;
  buf[n] = '\0';
  char* end = nullptr;
  const unsigned long long on_cpu_ns = std::strtoull(buf, &end, 10);
  if (end == buf) return std::nullopt;
  char* rest = end;
  const unsigned long long queued_ns = std::strtoull(rest, &end, 10);
  if (end == rest) return std::nullopt;
  rest = end;
  std::strtoull(rest, &end, 10);  // timeslices: three numbers, as parse_schedstat() asks
  if (end == rest) return std::nullopt;
  return SchedTime{static_cast<double>(on_cpu_ns) / 1e6, static_cast<double>(queued_ns) / 1e6};
}

}  // namespace

std::optional<SchedTime> parse_schedstat(const std::string& line) {
  std::istringstream in(line);
  unsigned long long on_cpu_ns = 0, queued_ns = 0, slices = 0;
  if (!(in >> on_cpu_ns >> queued_ns >> slices)) return std::nullopt;
  return SchedTime{static_cast<double>(on_cpu_ns) / 1e6, static_cast<double>(queued_ns) / 1e6};
}

std::optional<SchedTime> process_sched_time(const std::string& task_dir) {
  DIR* threads = ::opendir(task_dir.c_str());
  if (threads == nullptr) return std::nullopt;
  SchedTime sum;
  bool any = false;
  while (const dirent* thread = ::readdir(threads)) {
    if (thread->d_name[0] == '.') continue;
    const auto one = read_one(::dirfd(threads), thread->d_name);
    if (!one) continue;
    sum.on_cpu_ms += one->on_cpu_ms;
    sum.queued_ms += one->queued_ms;
    any = true;
  }
  ::closedir(threads);
  if (!any) return std::nullopt;
  return sum;
}

}  // namespace fabriclab::trainer
