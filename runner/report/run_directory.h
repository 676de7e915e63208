// Reading a run directory (recordings/FORMAT.md): run.json and metrics.jsonl,
// with the events grouped by scenario.
//
//   RunDirectory run = read_run_directory("runs/02-...");
//   for (const auto& name : run.scenario_names) use(run.events.at(name));
//
// Validation: every non-blank metrics line must be a JSON object with a
// string `event`; the fields the report uses are type-checked where they are
// read (`step`: rank, step, ts, step_ms, comm_ms, loss; `eval`: accuracy;
// `counters`: retransmits, drops, link_bytes), so a bad file fails here, with
// its line, not later in the arithmetic. Events without a `scenario` field
// (run-level events) are ignored; unknown events and fields are kept.
//
// Errors: InputError (exit 2), naming the file and, for content, the line:
//   "runs/x/run.json: not found: is runs/x a fabriclab run directory?"
//   "runs/x/metrics.jsonl:17: not valid JSON: ..."
//   "runs/x/metrics.jsonl:9: step event: field 'step_ms': expected a number"
// Thread safety: none needed (plain functions, no shared state).
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace fabriclab::runner::report {

struct RunDirectory {
  std::filesystem::path path;
  nlohmann::json manifest;  // run.json as written
  // Scenario names in run.json's order, then any scenario that appears only
  // in metrics.jsonl, in order of first appearance.
  std::vector<std::string> scenario_names;
  // Each scenario's events in file order (time order, as the runner merges
  // them). A scenario with no events (skipped) maps to an empty vector.
  std::map<std::string, std::vector<nlohmann::json>> events;
};

RunDirectory read_run_directory(const std::filesystem::path& dir);

// The pieces, for callers that hold the files elsewhere (tests, the runner
// before it has written run.json). `path` is only used in messages.
nlohmann::json parse_run_manifest(const std::string& text, const std::string& path);
// Parses JSON Lines text; returns the events in order. Throws InputError
// "path:line: ..." as above.
std::vector<nlohmann::json> parse_metrics_lines(const std::string& text, const std::string& path);

}  // namespace fabriclab::runner::report
