// The report's reading of a run directory: runner/rundir/run_reader.h's
// reader (one set of rules for every caller), strict. The report draws
// tables and charts from the events, so it refuses damaged data instead of
// drawing from part of it: the first damaged metrics line throws, as does a
// `result` field of the wrong kind (result/recorded_results.h).
//
//   RunDirectory run = read_run_directory("runs/02-...");
//   for (const auto& name : run.scenario_names) use(run.events.at(name));
//
// Errors: InputError (exit 2), naming the file and, for content, the line:
//   "runs/x/run.json: not found: is runs/x a fabriclab run directory?"
//   "runs/x/metrics.jsonl:17: not valid JSON: ..."
//   "runs/x/metrics.jsonl:9: step event: field 'step_ms': expected a number"
// Thread safety: none needed (plain functions, no shared state).
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "runner/rundir/run_reader.h"

namespace fabriclab::runner::report {

using rundir::RunDirectory;

// rundir::read_run(), throwing its first MetricsProblem as
// "DIR/metrics.jsonl:LINE: MESSAGE".
RunDirectory read_run_directory(const std::filesystem::path& dir);

// The pieces, for callers that hold the files elsewhere (tests, the runner
// before it has written run.json). `path` is only used in messages.
using rundir::parse_run_manifest;
// The events of JSON Lines text, in order; throws InputError "path:line: ..."
// for the first damaged line.
std::vector<nlohmann::json> parse_metrics_lines(const std::string& text, const std::string& path);

}  // namespace fabriclab::runner::report
