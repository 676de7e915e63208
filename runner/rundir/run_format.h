// The constants of a run directory, the recording format that
// recordings/FORMAT.md describes (read it for every field). The one reader
// (run_reader.h) and the one writer (run_writer.h) use them; nothing else
// spells these names or words.
//
//   <run dir>/run.json        the manifest: lab, scenarios, their results
//   <run dir>/metrics.jsonl   every rank's events + the runner's samples
//   <run dir>/session.cast    the terminal session (asciicast v2)
//
// A scenario's status is one of six words in run.json, in metrics.jsonl's
// scenario_end events and in session.cast's markers; in code it is a
// ScenarioStatus. Converting rejects any other word.
// Pure functions and constants; thread-safe.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace fabriclab::runner::rundir {

inline constexpr char kManifestFile[] = "run.json";
inline constexpr char kMetricsFile[] = "metrics.jsonl";
inline constexpr char kSessionCastFile[] = "session.cast";

inline constexpr char kRunFormatName[] = "fabriclab-run";  // run.json "format"
inline constexpr int kRunFormatVersion = 1;                // run.json "version"
inline constexpr int kMetricsFormatVersion = 2;            // each event's "v" (doc/metrics.md)
// The oldest "v" still read: version 1 differs only in `counters`
// (link_bytes counted each link at both ends; no `links`), so version 1
// recordings load, report and grade unchanged (recordings/FORMAT.md).
inline constexpr int kOldestMetricsFormatVersion = 1;

// How a scenario ended (runner/scenario/scenario_runner.h says when each
// happens).
enum class ScenarioStatus {
  kCompleted,    // "completed": every rank finished its steps
  kStalled,      // "stalled": no rank completed a step for stall_s
  kDeadline,     // "deadline": ran longer than deadline_s while progressing
  kFailed,       // "failed": a rank exited non-zero, or a peer host was lost
  kInterrupted,  // "interrupted": Ctrl-C / SIGTERM
  kSkipped,      // "skipped": not run
};

// The word of `status` as the files hold it ("completed", ...).
std::string to_string(ScenarioStatus status);
// The status a word names; nullopt for any other word (also "" and case
// variants: the files hold lower case).
std::optional<ScenarioStatus> scenario_status_from_string(std::string_view word);
// "completed, stalled, deadline, failed, interrupted or skipped", for
// messages that list the words.
std::string scenario_status_words();

// JSON holds the word. from_json throws std::invalid_argument naming the
// word and the expected ones for anything else (also a non-string).
void to_json(nlohmann::json& json, ScenarioStatus status);
void from_json(const nlohmann::json& json, ScenarioStatus& status);

}  // namespace fabriclab::runner::rundir
