// A run directory as the grader reads it: run.json (the manifest) and
// metrics.jsonl (every rank's events), recordings/FORMAT.md version 1.
//
// Contract: load_recording() throws InputError when the directory, run.json
// or metrics.jsonl is missing, when run.json is not JSON or not a
// "fabriclab-run" of a version this grader knows. Damage inside
// metrics.jsonl (a line that is not JSON, an unknown metrics version, an
// event without scenario or rank) is not thrown: it is kept in
// `metrics_problems` so the consistency check can report it and grading can
// go on for what does not depend on it (a truncated recording still grades
// its lab-derived exercises). Plain data, no shared state.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace fabriclab::runner::grading {

constexpr int kRunFormatVersion = 1;      // run.json "version"
constexpr int kMetricsFormatVersion = 1;  // metrics events' "v" (doc/metrics.md)

struct RecordedScenario {
  std::string name;
  std::string status;  // completed | stalled | deadline | failed | skipped
  std::string message;
  long steps_planned = 0;
  long steps_completed = 0;
  nlohmann::json result;  // the summary row; null when absent
};

// One problem found while reading metrics.jsonl, with its line.
struct MetricsProblem {
  long line = 0;
  std::string scenario;  // empty when the line did not say
  std::string message;
};

struct Recording {
  std::string dir;
  nlohmann::json run;  // run.json as read
  std::string lab_id;  // run.json lab.id
  std::optional<uint64_t> seed;
  long ranks = 0;
  std::vector<RecordedScenario> scenarios;  // in run.json order
  // scenario -> rank -> events in file order (each with its "line" added).
  std::map<std::string, std::map<int, std::vector<nlohmann::json>>> events;
  std::vector<MetricsProblem> metrics_problems;

  const RecordedScenario* scenario(const std::string& name) const;  // null if absent
  // Events of one scenario and rank (empty when there are none).
  const std::vector<nlohmann::json>& rank_events(const std::string& scenario, int rank) const;
};

Recording load_recording(const std::string& dir);

// The newest run directory of lab `lab_id` under `runs_dir`: the
// lexicographically last `<lab_id>-*` folder holding a run.json (run folders
// are named `<lab>-<UTC time>-<run id>`, so that is the latest run).
// Throws InputError when there is none.
std::string newest_run_dir(const std::string& runs_dir, const std::string& lab_id);

}  // namespace fabriclab::runner::grading
