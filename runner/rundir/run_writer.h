// The one writer of run directories (recordings/FORMAT.md, constants in
// run_format.h): creates the directory, appends events to metrics.jsonl as
// the run goes, and writes run.json. What goes on the terminal and into
// session.cast is the Console's (runner/cast/console.h), and what a
// lab run records is RunRecording's (runner/scenario/run_recording.h); this
// class only keeps the files in the format the reader (run_reader.h) reads.
//
//   RunWriter out("runs/02-20261122T053000Z-3fa2c1");
//   out.manifest()["lab"] = ...;              // any other run.json fields
//   out.append_events(events);                // per scenario, in time order
//   out.add_scenario(entry);
//   out.close_metrics(); out.write_manifest();
//
// Durability: each append goes to the file at once (write(2)), so a run
// that is killed leaves every complete line; run.json is replaced
// atomically (written beside, renamed), so a reader sees the old manifest
// or the new one, never half of one.
// A full disk: the writer sets aside kManifestReserveBytes beside run.json
// when it starts (a file it deletes before writing run.json), so a run
// whose disk fills up can still write a run.json saying so
// (mark_failed()): the one write that must not fail has its room.
// Lifetime: owns the metrics file and the reserve. Not thread-safe.
// Errors: RunWriteError, naming the file and the system's reason ("No space
// left on device"), when the directory or a file cannot be created or
// written.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "runner/rundir/run_format.h"

namespace fabriclab::runner::rundir {

// One entry of run.json's `scenarios` as the runner writes it.
struct ScenarioEntry {
  std::string name;
  std::string condition;
  std::vector<std::string> links;    // as the lab wrote them: "all", "r1", ...
  std::string spec;                  // tc-netem words, "" = none
  std::vector<std::string> applied;  // where the impairment went, one line per device
  ScenarioStatus status = ScenarioStatus::kFailed;
  std::string message;  // why, for anything but completed
  double started_unix_s = 0;
  double ended_unix_s = 0;
  int64_t steps_planned = 0;
  int64_t steps_completed = 0;
  // Workload parameters the scenario changed ({} = the lab's own) and the
  // scenario its slowdown is measured against ("" = none).
  std::map<std::string, std::string> workload;
  std::string baseline;
  int ranks = 0;  // the ranks its job ran on (0 .. ranks-1)
  // Resolved per-link settings (`[[scenario.override]]`, `seed:` links):
  // written as `impairments` instead of the one entry above when not empty;
  // and `link_picks`, each seed label's rank ({"slow_rank": "r2"}).
  nlohmann::json impairments;
  std::map<std::string, std::string> link_picks;
  // A `[[sweep]]` point (runner/lab/sweep.h): {"name": "loss", "value": 0.5}
  // written as `sweep`; null = a scenario written out.
  nlohmann::json sweep;
  // The host of each rank (`placement`): ["r0", "r0", "r2", "r2"]; empty =
  // rank K on host rK, and nothing is written.
  std::vector<std::string> placement;
};

// A file of the run directory could not be written: "runs/x/metrics.jsonl:
// cannot write: No space left on device".
class RunWriteError : public std::runtime_error {
 public:
  RunWriteError(const std::string& path, const std::string& doing, int error_number);
  int error_number() const { return error_number_; }

 private:
  int error_number_;
};

// Room kept for run.json: the largest reference recording's is 30 KB.
inline constexpr size_t kManifestReserveBytes = 128 * 1024;

class RunWriter {
 public:
  // Creates `dir` (and its parents) and opens DIR/metrics.jsonl. The
  // manifest starts as {"format": "fabriclab-run", "version": 1,
  // "scenarios": []}.
  explicit RunWriter(std::string dir);
  ~RunWriter();
  RunWriter(const RunWriter&) = delete;
  RunWriter& operator=(const RunWriter&) = delete;

  const std::string& dir() const { return dir_; }
  // DIR/session.cast, for the Console that records the terminal.
  std::string session_cast_path() const;
  // run.json as it will be written; add or change fields freely.
  nlohmann::json& manifest() { return manifest_; }

  // One line per event to metrics.jsonl, all or none: a write that fails
  // (a full disk) leaves the file as it was and throws RunWriteError.
  void append_events(const std::vector<nlohmann::json>& events);
  void close_metrics();
  // Appends `entry` to the manifest's `scenarios`.
  void add_scenario(const ScenarioEntry& entry);
  // Writes the manifest to DIR/run.json (atomically; may be called again).
  // Without room for it, gives up the reserve and tries once more.
  void write_manifest();
  // The run ended early: run.json says "status": "failed" and `why`, with
  // the scenarios that ended so far, and is written with the reserve's room.
  // Never throws (it runs while another error is on its way out): returns
  // false when even that could not be written.
  bool mark_failed(const std::string& why, double ended_unix_s) noexcept;

 private:
  void write_manifest_once() const;
  void release_reserve();

  std::string dir_;
  int metrics_fd_ = -1;
  nlohmann::json manifest_;
  std::string reserve_path_;  // "" once given up
};

}  // namespace fabriclab::runner::rundir
