#include "trainer/sched_time.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace fabriclab::trainer {
namespace {

// "<on-cpu ns> <run-queue ns> <timeslices>" in a NUL-terminated buffer, with
// strtoull rather than a stream: twice a step, once per thread.
std::optional<SchedTime> parse_schedstat_text(const char* text) {
  char* end = nullptr;
  const unsigned long long on_cpu_ns = std::strtoull(text, &end, 10);
  if (end == text) return std::nullopt;
  const char* rest = end;
  const unsigned long long queued_ns = std::strtoull(rest, &end, 10);
  if (end == rest) return std::nullopt;
  rest = end;
  std::strtoull(rest, &end, 10);  // timeslices: the line must hold all three
  if (end == rest) return std::nullopt;
  return SchedTime{static_cast<double>(on_cpu_ns) / 1e6, static_cast<double>(queued_ns) / 1e6};
}

int open_schedstat(int task_fd, const std::string& tid) {
  return ::openat(task_fd, (tid + "/schedstat").c_str(), O_RDONLY | O_CLOEXEC);
}

// The file's text from offset 0; false when it cannot be read (the thread
// ended: the kernel answers ESRCH).
bool read_from_start(int fd, char (&buf)[128]) {
  const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  if (n <= 0) return false;
  buf[n] = '\0';
  return true;
}

}  // namespace

std::optional<SchedTime> parse_schedstat(const std::string& line) {
  return parse_schedstat_text(line.c_str());
}

std::optional<SchedTime> process_sched_time(const std::string& task_dir) {
  return SchedClock(task_dir).now();
}

SchedClock::SchedClock(std::string task_dir) : task_dir_(std::move(task_dir)) {}

SchedClock::~SchedClock() {
  for (const Thread& t : open_) ::close(t.fd);
  if (threads_ != nullptr) ::closedir(threads_);
}

std::optional<SchedTime> SchedClock::now() {
  if (threads_ == nullptr) {
    threads_ = ::opendir(task_dir_.c_str());
    if (threads_ == nullptr) return std::nullopt;
  } else {
    ::rewinddir(threads_);
  }
  for (Thread& t : open_) t.listed = false;
  SchedTime sum;
  bool any = false;
  char buf[128];
  while (const dirent* entry = ::readdir(threads_)) {
    if (entry->d_name[0] == '.') continue;
    auto it = std::find_if(open_.begin(), open_.end(),
                           [&](const Thread& t) { return t.tid == entry->d_name; });
    if (it == open_.end()) {
      const int fd = open_schedstat(::dirfd(threads_), entry->d_name);
      if (fd < 0) continue;  // the thread ended meanwhile
      it = open_.insert(open_.end(), Thread{entry->d_name, fd, false});
    }
    it->listed = true;
    if (!read_from_start(it->fd, buf)) {
      // The file belonged to a thread that ended; a new one may have its
      // id (ids are reused): open the name again, once.
      ::close(it->fd);
      it->fd = open_schedstat(::dirfd(threads_), it->tid);
      if (it->fd < 0 || !read_from_start(it->fd, buf)) {
        it->listed = false;  // closed below
        continue;
      }
    }
    const auto one = parse_schedstat_text(buf);
    if (!one) continue;
    sum.on_cpu_ms += one->on_cpu_ms;
    sum.queued_ms += one->queued_ms;
    any = true;
  }
  // Threads that are gone: their files close.
  for (const Thread& t : open_)
    if (!t.listed && t.fd >= 0) ::close(t.fd);
  open_.erase(std::remove_if(open_.begin(), open_.end(), [](const Thread& t) { return !t.listed; }),
              open_.end());
  if (!any) return std::nullopt;
  return sum;
}

}  // namespace fabriclab::trainer
