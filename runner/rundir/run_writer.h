// The one writer of run directories (recordings/FORMAT.md, constants in
// run_format.h): creates the directory, appends events to metrics.jsonl as
// the run goes, and writes run.json. What goes on the terminal and into
// session.cast is the Console's (runner/recording/console.h), and what a
// lab run records is RunRecording's (runner/scenario/run_recording.h); this
// class only keeps the files in the format the reader (run_reader.h) reads.
//
//   RunWriter out("runs/02-20261122T053000Z-3fa2c1");
//   out.manifest()["lab"] = ...;              // any other run.json fields
//   out.append_events(events);                // per scenario, in time order
//   out.add_scenario(entry);
//   out.close_metrics(); out.write_manifest();
//
// Durability: each append is flushed, so a run that is killed leaves every
// complete line; run.json is replaced atomically (written beside, renamed),
// so a reader sees the old manifest or the new one, never half of one.
// Lifetime: owns the metrics stream. Not thread-safe.
// Errors: std::runtime_error (std::filesystem_error) when the directory or a
// file cannot be created or written.
#pragma once

#include <cstdint>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
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

class RunWriter {
 public:
  // Creates `dir` (and its parents) and opens DIR/metrics.jsonl. The
  // manifest starts as {"format": "fabriclab-run", "version": 1,
  // "scenarios": []}.
  explicit RunWriter(std::string dir);

  const std::string& dir() const { return dir_; }
  // DIR/session.cast, for the Console that records the terminal.
  std::string session_cast_path() const;
  // run.json as it will be written; add or change fields freely.
  nlohmann::json& manifest() { return manifest_; }

  // One line per event to metrics.jsonl, then flushed.
  void append_events(const std::vector<nlohmann::json>& events);
  void close_metrics();
  // Appends `entry` to the manifest's `scenarios`.
  void add_scenario(const ScenarioEntry& entry);
  // Writes the manifest to DIR/run.json (atomically; may be called again).
  void write_manifest() const;

 private:
  std::string dir_;
  std::ofstream metrics_;
  nlohmann::json manifest_;
};

}  // namespace fabriclab::runner::rundir
