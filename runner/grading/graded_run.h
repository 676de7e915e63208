// A run directory as the grader reads it: runner/rundir/run_reader.h's
// reader (recordings/FORMAT.md version 1), with the events regrouped by
// scenario and rank and every damaged line kept as a problem.
//
// Contract: load_graded_run() throws InputError when the reader does (the
// directory, run.json or metrics.jsonl missing, run.json damaged), and when
// run.json lacks what grading needs: "format", "version", "lab.id" and
// "scenarios", or holds malformed "predictions" (prediction_record.h). Damage inside metrics.jsonl is not thrown: it is kept in
// `metrics_problems` so the consistency check can report it and grading can
// go on for what does not depend on it (a truncated recording still grades
// its lab-derived exercises). Besides the reader's rules, the grader counts
// as damage an event without "v", without "scenario" (the runner writes no
// run-level events) or without a numeric "ts" (it checks times).
// Plain data, no shared state.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "runner/lab/lab_definition.h"
#include "runner/grading/prediction_record.h"
#include "runner/rundir/run_reader.h"

namespace fabriclab::runner::grading {

using rundir::RecordedScenario;

// One problem found while reading metrics.jsonl, with its line.
struct MetricsProblem {
  long line = 0;
  std::string scenario;  // empty when the line did not say
  std::string message;   // "metrics.jsonl:LINE: ..."
};

struct GradedRun {
  std::string dir;
  nlohmann::json run;  // run.json as read
  std::string lab_id;  // run.json lab.id
  std::optional<uint64_t> seed;
  long ranks = 0;
  std::vector<RecordedScenario> scenarios;  // in run.json order
  // scenario -> rank -> events in file order (each with its "line" added).
  // Runner events (scenario_start, counters, scenario_end) have no rank;
  // they are kept under rank -1.
  std::map<std::string, std::map<int, std::vector<nlohmann::json>>> events;
  std::vector<MetricsProblem> metrics_problems;  // in line order
  // run.json's "predictions" (empty for a run without them, or from before them).
  std::vector<RecordedPrediction> predictions;

  const RecordedScenario* scenario(const std::string& name) const;  // null if absent
  // Events of one scenario and rank (empty when there are none).
  const std::vector<nlohmann::json>& rank_events(const std::string& scenario, int rank) const;
};

GradedRun load_graded_run(const std::string& dir);

// The lab as this run drew it: `lab` loaded again with run.json's
// `conditions` (labs/SCHEMA.md, "Per-student conditions"; a recording
// without them ran every draw's first choice). `lab` itself when it draws
// nothing. InputError (exit 2) for conditions the lab does not offer.
LabDefinition lab_for_run(const LabDefinition& lab, const GradedRun& rec);

// The newest run directory of lab `lab_id` under `runs_dir`: the
// lexicographically last `<lab_id>-*` folder holding a run.json (run folders
// are named `<lab>-<UTC time>-<run id>`, so that is the latest run).
// Throws InputError when there is none.
std::string newest_run_dir(const std::string& runs_dir, const std::string& lab_id);
// The same, nullopt when there is none (or no `runs_dir`): for listings that
// go on past a lab never run (`fabriclab progress`).
std::optional<std::string> find_newest_run_dir(const std::string& runs_dir,
                                               const std::string& lab_id);

}  // namespace fabriclab::runner::grading
