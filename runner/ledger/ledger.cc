#include "runner/ledger/ledger.h"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <stdexcept>

#include "common/process_identity.h"
#include "common/uid_map.h"

namespace fabriclab::runner {
namespace {

constexpr int kFormatVersion = 1;
constexpr const char* kRootDirectory = "/run/fabriclab/runs";

// mkdir -p; the last component gets `mode`, parents 0755.
void make_directories(const std::string& directory, mode_t mode) {
  for (size_t slash = 1; slash != std::string::npos;) {
    slash = directory.find('/', slash + 1);
    std::string prefix = directory.substr(0, slash);
    if (::mkdir(prefix.c_str(), slash == std::string::npos ? mode : 0755) != 0 && errno != EEXIST) {
      throw std::runtime_error("run ledger: cannot create directory " + prefix + ": " +
                               std::strerror(errno));
    }
  }
}

void write_file_atomically(const std::string& path, const std::string& text) {
  const std::string temp = path + ".tmp";
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) {
    throw std::runtime_error("run ledger: cannot write " + temp + ": " + std::strerror(errno));
  }
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int err = errno;
      ::close(fd);
      ::unlink(temp.c_str());
      throw std::runtime_error("run ledger: cannot write " + temp + ": " + std::strerror(err));
    }
    done += static_cast<size_t>(n);
  }
  // The rename is the commit point: a reader sees the old or the new ledger,
  // never half of one, even if we are killed right here.
  ::fsync(fd);
  ::close(fd);
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(temp.c_str());
    throw std::runtime_error("run ledger: cannot rename " + temp + " to " + path + ": " +
                             std::strerror(err));
  }
}

}  // namespace

std::string default_ledger_directory() {
  if (::geteuid() == 0 && in_initial_user_namespace()) return kRootDirectory;
  const char* runtime = std::getenv("XDG_RUNTIME_DIR");
  if (runtime != nullptr && runtime[0] == '/') return std::string(runtime) + "/fabriclab/runs";
  return "/tmp/fabriclab-" + std::to_string(host_uid()) + "/runs";
}

Ledger::Ledger(std::string run_id, std::string directory) : run_id_(std::move(run_id)) {
  if (run_id_.empty() || run_id_.find('/') != std::string::npos) {
    throw std::runtime_error("run ledger: run id '" + run_id_ + "' is not a file name");
  }
  make_directories(directory, directory.rfind("/run/fabriclab", 0) == 0 ? 0755 : 0700);
  path_ = directory + "/" + run_id_ + ".json";
  if (::access(path_.c_str(), F_OK) == 0) {
    throw std::runtime_error("run ledger: " + path_ + " exists already (run id reused?)");
  }
  const ProcessIdentity owner = self_identity();
  document_ = {
      {"format", "fabriclab-ledger"},
      {"version", kFormatVersion},
      {"run_id", run_id_},
      {"owner", {{"pid", owner.pid}, {"start_ticks", owner.start_ticks}, {"host_uid", host_uid()}}},
      {"created_unix_s", static_cast<int64_t>(std::time(nullptr))},
      {"entries", nlohmann::json::array()}};
  std::lock_guard<std::mutex> lock(mutex_);
  write_locked();
}

Ledger::~Ledger() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (document_["entries"].empty()) {
    ::unlink(path_.c_str());
    return;
  }
  spdlog::warn("run {}: {} object(s) could not be removed; `fabriclab cleanup` will retry ({})",
               run_id_, document_["entries"].size(), path_);
}

Ledger::EntryId Ledger::record(nlohmann::json entry) {
  if (!entry.is_object() || !entry.contains("kind")) {
    throw std::logic_error("run ledger: an entry needs a \"kind\"");
  }
  std::lock_guard<std::mutex> lock(mutex_);
  const EntryId id = next_id_++;
  entry["id"] = id;
  document_["entries"].push_back(std::move(entry));
  try {
    write_locked();
  } catch (...) {
    document_["entries"].erase(document_["entries"].size() - 1);
    throw;
  }
  return id;
}

void Ledger::update(EntryId id, const nlohmann::json& fields) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& entry : document_["entries"]) {
    if (entry["id"] == id) {
      entry.update(fields);
      write_locked();
      return;
    }
  }
}

void Ledger::forget(EntryId id) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto& entries = document_["entries"];
  for (size_t i = 0; i < entries.size(); ++i) {
    if (entries[i]["id"] == id) {
      entries.erase(i);
      try {
        write_locked();
      } catch (const std::exception& e) {
        // Called from teardown paths: the entry stays in the stale file, and
        // `cleanup` finds the object already gone. Nothing worse happens.
        spdlog::warn("{}", e.what());
      }
      return;
    }
  }
}

nlohmann::json Ledger::snapshot() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return document_;
}

void Ledger::write_locked() { write_file_atomically(path_, document_.dump(2) + "\n"); }

}  // namespace fabriclab::runner
