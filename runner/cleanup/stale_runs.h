// Cleaning up after runs that did not end cleanly (runner SIGKILLed, machine
// froze): read every ledger in the ledger directory whose owner process is
// gone, remove exactly what it recorded, newest entry first, say what was
// removed, and delete the ledger. Ledgers of runs in progress are left alone.
// Used by `fabriclab cleanup` and by the start of every run (which warns).
//
// Entry kinds are handled by CleanupHandlers. Built in: "process" (SIGKILL
// its process group if pid and start time still match) and "netns" (remove
// the /run/netns bind mount if it still is the recorded namespace; rootless
// namespaces went with their user namespace). Other parts register handlers
// for their own kinds (e.g. host mode's qdiscs on a real interface) before
// calling clean_stale_runs(). An entry without a handler, or whose handler
// throws, stays in the ledger, which is rewritten with what is left, and the
// run is reported as not fully cleaned.
//
// runner/cleanup/ is the folder of "remove what runs left behind": this file
// (stale runs, from their ledgers), interface_cleanup.h (fabriclab's
// impairments on a real interface, through each backend's remove_leftovers())
// and impairment_guardian.h (host mode's process that runs the latter when
// its runner is killed). It may use ledger/, process/, topology/ and netem's
// interface (netem/impairment.h); none of those use it, so the ledger stays
// the plain record of what a run created.
//
// Thread safety: register handlers before use, from one thread.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace fabriclab::runner {

// What a handler knows besides its entry.
struct CleanupContext {
  std::string run_id;    // the stale run's id
  bool dry_run = false;  // only describe what would be removed
};

// Removes (or with dry_run, only describes) the object `entry` records.
// Returns one sentence for the report ("network namespace ...: removed").
// Throws std::runtime_error if it cannot remove it.
using CleanupHandler =
    std::function<std::string(const nlohmann::json& entry, const CleanupContext& context)>;

// Adds or replaces the handler for entries of `kind`.
void register_cleanup_handler(const std::string& kind, CleanupHandler handler);

struct CleanupOptions {
  std::string directory;  // "" = default_ledger_directory()
  bool dry_run = false;   // only list what would be removed
};

struct StaleRun {
  std::string run_id;
  std::string ledger_path;
  std::string owner;                 // "pid 1234 (gone)"
  std::vector<std::string> actions;  // one sentence per entry handled
  std::vector<std::string> errors;   // entries that could not be handled
  bool ledger_removed = false;
};

struct CleanupReport {
  std::vector<StaleRun> runs;            // stale runs found (and cleaned unless dry_run)
  std::vector<std::string> in_progress;  // run ids whose owner still runs: untouched
  bool ok() const;                       // no errors in any run
};

CleanupReport clean_stale_runs(const CleanupOptions& options);

// Human-readable lines of a report, e.g. for `fabriclab cleanup`.
std::vector<std::string> describe(const CleanupReport& report, bool dry_run);

// For the start of a run: cleans stale runs of the default directory and
// logs a warning per object removed; never throws (logs errors instead).
void clean_stale_runs_and_warn();

}  // namespace fabriclab::runner
