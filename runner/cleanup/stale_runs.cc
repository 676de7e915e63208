#include "runner/cleanup/stale_runs.h"

#include <dirent.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>

#include "common/process_identity.h"
#include "runner/ledger/ledger.h"
#include "runner/process/process.h"
#include "runner/process/recorded_process.h"
#include "runner/rdma/rxe_device.h"
#include "runner/topology/network_namespace.h"

namespace fabriclab::runner {
namespace {

std::string clean_process(const nlohmann::json& entry, const CleanupContext& context) {
  return kill_recorded_process(entry.at("pid").get<pid_t>(),
                               entry.value("start_ticks", static_cast<uint64_t>(0)), context.run_id,
                               entry.value("label", std::string("?")), context.dry_run);
}

std::string clean_netns(const nlohmann::json& entry, const CleanupContext& context) {
  const std::string name = entry.value("name", std::string("?"));
  const std::string path = entry.value("path", std::string());
  if (path.empty() || !entry.value("host_mount", false)) {
    // Rootless: the name (if any) lived in the runner's private mount
    // namespace, and the namespace itself in its user namespace; both ended
    // with the runner and its ranks.
    return "network namespace " + name + ": went with the runner's user namespace";
  }
  return remove_netns_mount(path, entry.value("inode", static_cast<ino_t>(0)), context.dry_run);
}

// A SoftRoCE device a host-mode run created on a real interface
// (runner/rdma/rxe_device.h).
std::string clean_rdma_link(const nlohmann::json& entry, const CleanupContext& context) {
  return rdma::remove_rxe_device(entry.at("name").get<std::string>(),
                                 entry.value("netdev", std::string()), context.dry_run);
}

std::map<std::string, CleanupHandler>& handlers() {
  static std::map<std::string, CleanupHandler> table = {
      {"process", clean_process},
      {"netns", clean_netns},
      {"rdma_link", clean_rdma_link},
  };
  return table;
}

std::vector<std::string> ledger_files(const std::string& directory) {
  std::vector<std::string> files;
  DIR* dir = ::opendir(directory.c_str());
  if (dir == nullptr) return files;  // no directory: no runs ever
  while (dirent* entry = ::readdir(dir)) {
    std::string name = entry->d_name;
    if (name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0) {
      files.push_back(directory + "/" + name);
    }
  }
  ::closedir(dir);
  std::sort(files.begin(), files.end());
  return files;
}

void rewrite(const std::string& path, const nlohmann::json& document) {
  const std::string temp = path + ".tmp";
  {
    std::ofstream out(temp, std::ios::trunc);
    out << document.dump(2) << "\n";
    if (!out) throw std::runtime_error("cannot write " + temp);
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    throw std::runtime_error("cannot rename " + temp + " to " + path);
  }
}

void clean_one(const std::string& path, nlohmann::json document, bool dry_run, StaleRun& run) {
  const CleanupContext context{run.run_id, dry_run};
  nlohmann::json& entries = document["entries"];
  nlohmann::json left = nlohmann::json::array();
  // Newest first: processes die before the namespaces they ran in go.
  for (auto entry = entries.rbegin(); entry != entries.rend(); ++entry) {
    const std::string kind = entry->value("kind", std::string());
    auto handler = handlers().find(kind);
    if (handler == handlers().end()) {
      run.errors.push_back("entry of kind '" + kind + "': no handler here, kept in the ledger");
      left.insert(left.begin(), *entry);
      continue;
    }
    try {
      run.actions.push_back(handler->second(*entry, context));
    } catch (const std::exception& e) {
      run.errors.push_back(e.what());
      left.insert(left.begin(), *entry);
    }
  }
  if (dry_run) return;
  if (left.empty()) {
    run.ledger_removed = ::unlink(path.c_str()) == 0;
  } else {
    document["entries"] = left;
    rewrite(path, document);
  }
}

}  // namespace

void register_cleanup_handler(const std::string& kind, CleanupHandler handler) {
  handlers()[kind] = std::move(handler);
}

bool CleanupReport::ok() const {
  return std::all_of(runs.begin(), runs.end(), [](const StaleRun& r) { return r.errors.empty(); });
}

CleanupReport clean_stale_runs(const CleanupOptions& options) {
  const std::string directory =
      options.directory.empty() ? default_ledger_directory() : options.directory;
  CleanupReport report;
  for (const std::string& path : ledger_files(directory)) {
    StaleRun run;
    run.ledger_path = path;
    nlohmann::json document;
    try {
      std::ifstream in(path);
      // Gone since it was listed: another cleanup (or a run's start, which
      // sweeps too) finished it first. Nothing is left for this one to do.
      if (!in && !std::filesystem::exists(path)) continue;
      document = nlohmann::json::parse(in);
      run.run_id = document.at("run_id").get<std::string>();
      const nlohmann::json& owner = document.at("owner");
      ProcessIdentity identity{owner.at("pid").get<pid_t>(),
                               owner.at("start_ticks").get<uint64_t>()};
      if (is_running(identity)) {
        report.in_progress.push_back(run.run_id);
        continue;
      }
      run.owner = "runner pid " + std::to_string(identity.pid) + " (gone)";
    } catch (const std::exception& e) {
      // Not ours to judge: a file we cannot read is reported and left as is.
      run.run_id = "?";
      run.errors.push_back("unreadable ledger " + path + ": " + e.what());
      report.runs.push_back(run);
      continue;
    }
    try {
      clean_one(path, document, options.dry_run, run);
    } catch (const std::exception& e) {
      run.errors.push_back(e.what());
    }
    report.runs.push_back(run);
  }
  return report;
}

std::vector<std::string> describe(const CleanupReport& report, bool dry_run) {
  std::vector<std::string> lines;
  for (const StaleRun& run : report.runs) {
    lines.push_back("run " + run.run_id + " (" + run.ledger_path + ", " + run.owner + "):");
    for (const std::string& action : run.actions) lines.push_back("  " + action);
    for (const std::string& error : run.errors) lines.push_back("  ERROR: " + error);
    if (!dry_run) {
      lines.push_back(run.ledger_removed ? "  ledger removed"
                                         : "  ledger kept (something could not be removed)");
    }
  }
  for (const std::string& run_id : report.in_progress) {
    lines.push_back("run " + run_id + ": in progress (its runner is alive), left alone");
  }
  if (report.runs.empty()) lines.push_back("nothing left over by earlier runs");
  return lines;
}

void clean_stale_runs_and_warn() {
  try {
    CleanupReport report = clean_stale_runs({});
    if (report.runs.empty()) return;
    spdlog::warn("earlier run(s) did not end cleanly; removing what they left:");
    for (const std::string& line : describe(report, false)) spdlog::warn("{}", line);
  } catch (const std::exception& e) {
    spdlog::error("cleaning up after earlier runs: {}", e.what());
  }
}

}  // namespace fabriclab::runner
