// The one reader of run directories (recordings/FORMAT.md, constants in
// run_format.h): run.json and metrics.jsonl, the events grouped by
// scenario. The report (runner/report), the runner after a run
// (runner/scenario/run_recording.h) and the grader (runner/grading) all read
// through it.
//
//   RunDirectory run = read_run("recordings/02-...");
//   for (const auto& name : run.scenario_names) use(run.events.at(name));
//   for (const MetricsProblem& p : run.problems) complain(describe(p));
//
// The rules, the same for every caller:
//  - run.json must be a JSON object; `format` and `version`, when present,
//    must be "fabriclab-run" and 1; `scenarios`, when present, an array of
//    objects with a non-empty string `name` and, when present, a `status`
//    that is one of ScenarioStatus's words; a `result`, when present, an
//    object (its fields' kinds are the result parts' to check: the report
//    and the grader call runner/report/result/recorded_results.h).
//  - every non-blank line of metrics.jsonl must be a JSON object with a
//    string `event`; `v`, when present, must be 1 or 2 (run_format.h); the
//    fields the report uses are type-checked, and none may be below 0 (`step`: rank, step, ts,
//    step_ms, comm_ms, and loss when present; `eval`: accuracy; `counters`: retransmits,
//    drops, link_bytes) and a
//    scenario_end's `status`, when present, must be a known word. Events
//    without a string `scenario` are run-level: kept in `metrics`, in no
//    scenario. Unknown events and fields are kept.
//
// Errors: the directory, a missing or unreadable file, and any damage in
// run.json throw InputError (exit 2) naming the file (and, for content, the
// line): "runs/x/run.json: not found: is runs/x a fabriclab run directory?",
// "runs/x/run.json:3: not valid JSON: ...". A damaged metrics line does not
// throw: it becomes a MetricsProblem and is left out of the events, so a
// truncated recording still yields what it holds. The grader reports them
// all (runner/grading/recording.h); the report, which cannot draw from
// damaged data, throws the first as InputError "runs/x/metrics.jsonl:9: step
// event: field 'step_ms': expected a number" (runner/report/run_directory.h).
// Thread safety: none needed (plain functions, no shared state).
#pragma once

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "runner/rundir/run_format.h"

namespace fabriclab::runner::rundir {

// One entry of run.json's `scenarios` as read.
struct RecordedScenario {
  std::string name;
  std::optional<ScenarioStatus> status;  // nullopt when run.json does not say
  std::string message;                   // "" when absent
  long steps_planned = 0;                // 0 when absent
  long steps_completed = 0;              // 0 when absent
  nlohmann::json result;                 // the summary row; null when absent
  nlohmann::json rdma;                   // a RoCE scenario's rxe counters; null when absent
  // What its slowdown is measured against: nullopt when run.json does not
  // say (older recordings: "clean"), "" for none.
  std::optional<std::string> baseline;
  // The ranks its job ran on (0 .. ranks-1); 0 when run.json does not say
  // (older recordings: all of the run's ranks).
  long ranks = 0;
};

// One well-formed line of metrics.jsonl.
struct MetricsEvent {
  long line = 0;  // 1-based
  nlohmann::json event;
};

// One damaged line of metrics.jsonl, left out of the events.
struct MetricsProblem {
  long line = 0;
  std::string scenario;  // empty when the line did not say
  std::string message;   // without the place, e.g. "expected a JSON object per line"
};

// "metrics.jsonl:LINE: MESSAGE".
std::string describe(const MetricsProblem& problem);

struct RunDirectory {
  std::filesystem::path path;
  nlohmann::json manifest;                  // run.json as written
  std::string manifest_text;                // its text, for line numbers (json_line.h)
  std::vector<RecordedScenario> scenarios;  // run.json's, in its order
  // Scenario names in run.json's order, then any scenario that appears only
  // in metrics.jsonl, in order of first appearance.
  std::vector<std::string> scenario_names;
  // Each scenario's events in file order (time order, as the runner merges
  // them). A scenario with no events (skipped) maps to an empty vector.
  std::map<std::string, std::vector<nlohmann::json>> events;
  // Every well-formed line with its line number, run-level events included.
  std::vector<MetricsEvent> metrics;
  std::vector<MetricsProblem> problems;  // in line order

  const RecordedScenario* scenario(const std::string& name) const;  // null if absent
};

RunDirectory read_run(const std::filesystem::path& dir);
// run.json alone, with read_run's errors, for a caller that needs only the
// manifest (a replay's conditions, a course's lesson verdict).
nlohmann::json read_run_manifest(const std::filesystem::path& dir);

// A JSON number read as a count (steps, ranks): an integer as it is, a
// float truncated when it is finite and inside long's range; anything else
// (a string, nan, 1e300) is `fallback`. A damaged file may hold any number,
// and converting an out-of-range double to an integer is undefined.
long json_count(const nlohmann::json& value, long fallback = 0);
// The same for a number field, read as a double: `fallback` unless a number.
double json_number(const nlohmann::json& object, const char* key, double fallback);

// The pieces, for callers that hold the files elsewhere (tests, the runner
// before it has written run.json). `path` is only used in messages.
// Throws InputError "path:line: ..." as above.
nlohmann::json parse_run_manifest(const std::string& text, const std::string& path);

struct MetricsLines {
  std::vector<MetricsEvent> events;
  std::vector<MetricsProblem> problems;
};
// Never throws for content: damaged lines become problems.
MetricsLines parse_metrics(const std::string& text);

}  // namespace fabriclab::runner::rundir
