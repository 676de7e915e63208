// The ledger: what a run has created, written down BEFORE it is created, so
// that after a SIGKILL of the runner `fabriclab cleanup` can remove exactly
// that and nothing else (never by name patterns).
//
// One JSON file per run, <directory>/<run_id>.json:
//   {"format": "fabriclab-ledger", "version": 1, "run_id": "3fa2c1",
//    "owner": {"pid": 1234, "start_ticks": 98765, "host_uid": 1000},
//    "created_unix_s": 1790000000,
//    "entries": [{"id": 1, "kind": "netns", ...}, {"id": 2, "kind": "process", ...}]}
// Entry kinds written by the runner (the handlers in
// runner/cleanup/stale_runs.h read them):
//   "netns":   name, path ("/run/netns/<name>" or ""), inode (0 until known)
//   "process": pid, start_ticks, pgid, argv0, netns
// Other parts (e.g. host-mode qdiscs, nft tables on a real interface) add
// their own kinds and register a handler for them (cleanup/stale_runs.h). Objects
// that live inside a recorded namespace (links, addresses, qdiscs there) are
// not recorded: they go with the namespace.
//
// The owner is the runner process (pid + start time): a ledger whose owner is
// gone is stale and `fabriclab cleanup` may act on it; one whose owner lives
// belongs to a run in progress and is left alone.
//
// Lifetime: the constructor writes the file; record()/update()/forget()
// rewrite it atomically (temp file + rename) before returning. The destructor
// removes the file if no entries remain (the run ended cleanly), and keeps it
// (with a warning) otherwise, so that `cleanup` can finish the job.
// Declare the Ledger before the objects it records, so it outlives them.
//
// runner/ledger/ is only this record (and run ids): it depends on nothing
// else in the runner. Reading stale ledgers and removing what they list is
// runner/cleanup/'s job (cleanup/stale_runs.h).
//
// Thread safety: all methods are thread-safe (one mutex).
// Errors: std::runtime_error naming the file and errno; a ledger that cannot
// be written stops the run before anything is created.
#pragma once

#include <cstdint>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>

namespace fabriclab::runner {

// Where ledgers live: /run/fabriclab/runs as root on the host;
// $XDG_RUNTIME_DIR/fabriclab/runs otherwise (rootless; in rootless mode the
// kernel frees the namespaces when the processes die, but pids are recorded
// all the same), or /tmp/fabriclab-<uid>/runs without XDG_RUNTIME_DIR.
std::string default_ledger_directory();

class Ledger {
 public:
  using EntryId = int64_t;

  // Creates <directory>/<run_id>.json (and the directory, mode 0700 unless it
  // is under /run/fabriclab). Throws if a ledger for this run id exists.
  explicit Ledger(std::string run_id, std::string directory = default_ledger_directory());
  ~Ledger();
  Ledger(const Ledger&) = delete;
  Ledger& operator=(const Ledger&) = delete;

  // Appends `entry` (an object with at least "kind") and writes the file.
  // Returns the id to update() or forget() it with.
  EntryId record(nlohmann::json entry);
  // Merges `fields` into the entry (e.g. a pid once known). Unknown id: no-op.
  void update(EntryId id, const nlohmann::json& fields);
  // The object was removed: drops the entry and writes the file. Never
  // throws (teardown calls it from destructors); a write failure is logged.
  void forget(EntryId id);

  const std::string& run_id() const { return run_id_; }
  const std::string& path() const { return path_; }
  // A copy of the current contents (for tests and diagnostics).
  nlohmann::json snapshot() const;

 private:
  void write_locked();

  std::string run_id_;
  std::string path_;
  mutable std::mutex mutex_;
  nlohmann::json document_;
  EntryId next_id_ = 1;
};

}  // namespace fabriclab::runner
