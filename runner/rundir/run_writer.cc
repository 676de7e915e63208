#include "runner/rundir/run_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace fabriclab::runner::rundir {
namespace {

// All of `text` to `fd`, or the errno of the write that failed (0 = written).
int write_all(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n < 0 ? errno : ENOSPC;
    done += static_cast<size_t>(n);
  }
  return 0;
}

// `path` holding `text`, or the errno that stopped it (the file may then
// exist, partly written).
int write_file(const std::string& path, const std::string& text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return errno;
  int error = write_all(fd, text);
  // tmpfs and most file systems report a full disk at write(); others
  // (NFS, quotas on some) only at fsync or close.
  if (error == 0 && ::fsync(fd) != 0 && errno != EINVAL) error = errno;
  if (::close(fd) != 0 && error == 0) error = errno;
  return error;
}

}  // namespace

RunWriteError::RunWriteError(const std::string& path, const std::string& doing, int error_number)
    : std::runtime_error(path + ": cannot " + doing + ": " + std::strerror(error_number) +
                         (error_number == ENOSPC ? " (ENOSPC: the disk holding the run directory is full)"
                                                 : "")),
      error_number_(error_number) {}

RunWriter::RunWriter(std::string dir) : dir_(std::move(dir)) {
  std::error_code error;
  std::filesystem::create_directories(dir_, error);
  if (error) throw RunWriteError(dir_, "create the run directory", error.value());
  const std::string metrics = dir_ + "/" + kMetricsFile;
  metrics_fd_ = ::open(metrics.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
  if (metrics_fd_ < 0) throw RunWriteError(metrics, "create", errno);
  reserve_path_ = dir_ + "/." + kManifestFile + ".reserve";
  // Real blocks, not a sparse file: zeros written, as fallocate is not everywhere.
  if (const int failed = write_file(reserve_path_, std::string(kManifestReserveBytes, '\0'))) {
    const std::string reserve = reserve_path_;
    release_reserve();
    ::close(metrics_fd_);
    metrics_fd_ = -1;
    throw RunWriteError(reserve, "set aside room for run.json", failed);
  }
  manifest_ = {{"format", kRunFormatName},
               {"version", kRunFormatVersion},
               {"scenarios", nlohmann::json::array()}};
}

RunWriter::~RunWriter() {
  if (metrics_fd_ >= 0) ::close(metrics_fd_);
  release_reserve();
}

std::string RunWriter::session_cast_path() const { return dir_ + "/" + kSessionCastFile; }

void RunWriter::append_events(const std::vector<nlohmann::json>& events) {
  if (metrics_fd_ < 0) throw std::logic_error("RunWriter: metrics.jsonl is closed");
  std::string text;
  for (const auto& event : events) text += event.dump() + "\n";
  const off_t before = ::lseek(metrics_fd_, 0, SEEK_END);
  if (const int error = write_all(metrics_fd_, text)) {
    // All of a scenario's events or none: cut the partial line a full disk left.
    if (before >= 0 && ::ftruncate(metrics_fd_, before) != 0) {
      throw RunWriteError(dir_ + "/" + kMetricsFile, "write (and cut back the partial line)", error);
    }
    throw RunWriteError(dir_ + "/" + kMetricsFile, "write", error);
  }
}

void RunWriter::close_metrics() {
  if (metrics_fd_ < 0) return;
  const int fd = metrics_fd_;
  metrics_fd_ = -1;
  if (::close(fd) != 0) throw RunWriteError(dir_ + "/" + kMetricsFile, "close", errno);
}

void RunWriter::add_scenario(const ScenarioEntry& e) {
  manifest_["scenarios"].push_back(
      {{"name", e.name},
       {"condition", e.condition},
       {"impairments", {{{"links", e.links}, {"spec", e.spec}, {"applied", e.applied}}}},
       {"status", e.status},
       {"message", e.message},
       {"started_unix_s", e.started_unix_s},
       {"ended_unix_s", e.ended_unix_s},
       {"steps_planned", e.steps_planned},
       {"steps_completed", e.steps_completed},
       {"workload", e.workload},
       {"baseline", e.baseline.empty() ? nlohmann::json() : nlohmann::json(e.baseline)},
       {"ranks", e.ranks}});
  nlohmann::json& added = manifest_["scenarios"].back();
  if (e.impairments.is_array() && !e.impairments.empty()) added["impairments"] = e.impairments;
  if (!e.link_picks.empty()) added["link_picks"] = e.link_picks;
  if (e.sweep.is_object()) added["sweep"] = e.sweep;
  if (!e.placement.empty()) added["placement"] = e.placement;
}

void RunWriter::write_manifest_once() const {
  const std::string path = dir_ + "/" + kManifestFile;
  const std::string temp = path + ".tmp";
  if (const int error = write_file(temp, manifest_.dump(2) + "\n")) {
    ::unlink(temp.c_str());
    throw RunWriteError(path, "write", error);
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    const int error = errno;
    ::unlink(temp.c_str());
    throw RunWriteError(path, "replace", error);
  }
}

void RunWriter::write_manifest() {
  try {
    write_manifest_once();
  } catch (const RunWriteError& e) {
    if (reserve_path_.empty() || (e.error_number() != ENOSPC && e.error_number() != EDQUOT)) throw;
    release_reserve();
    write_manifest_once();
  }
}

bool RunWriter::mark_failed(const std::string& why, double ended_unix_s) noexcept {
  try {
    manifest_["status"] = "failed";
    manifest_["error"] = why;
    manifest_["ended_unix_s"] = ended_unix_s;
    release_reserve();  // the room is for this
    write_manifest_once();
    return true;
  } catch (...) {
    return false;
  }
}

void RunWriter::release_reserve() {
  if (reserve_path_.empty()) return;
  ::unlink(reserve_path_.c_str());
  reserve_path_.clear();
}

}  // namespace fabriclab::runner::rundir
