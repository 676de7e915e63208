#include "runner/grading/recording.h"

#include <filesystem>
#include <fstream>

#include "common/input_error.h"

namespace fabriclab::runner::grading {

namespace fs = std::filesystem;
using nlohmann::json;

const RecordedScenario* Recording::scenario(const std::string& name) const {
  for (const RecordedScenario& s : scenarios) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

const std::vector<json>& Recording::rank_events(const std::string& scenario, int rank) const {
  static const std::vector<json> kNone;
  auto s = events.find(scenario);
  if (s == events.end()) return kNone;
  auto r = s->second.find(rank);
  return r == s->second.end() ? kNone : r->second;
}

namespace {

std::string string_field(const json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

long long_field(const json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_number() ? it->get<long>() : 0;
}

void read_manifest(const std::string& path, Recording& rec) {
  std::ifstream in(path);
  if (!in) throw InputError(path + ": cannot read the recording's manifest");
  try {
    rec.run = json::parse(in);
  } catch (const json::parse_error& e) {
    throw InputError(path + ": not valid JSON (" + e.what() +
                     "); a truncated or damaged recording");
  }
  if (!rec.run.is_object() || rec.run.value("format", "") != "fabriclab-run") {
    throw InputError(path +
                     ": not a fabriclab run manifest (expected \"format\": \"fabriclab-run\")");
  }
  if (!rec.run.contains("version") || rec.run["version"] != kRunFormatVersion) {
    throw InputError(path + ": run.json version " + rec.run.value("version", json()).dump() +
                     " is not one this grader knows (expected " +
                     std::to_string(kRunFormatVersion) + ")");
  }
  if (rec.run.contains("lab") && rec.run["lab"].is_object()) {
    rec.lab_id = string_field(rec.run["lab"], "id");
  }
  if (rec.lab_id.empty()) throw InputError(path + ": missing lab.id");
  if (rec.run.contains("seed") && rec.run["seed"].is_number_integer()) {
    rec.seed = rec.run["seed"].get<uint64_t>();
  }
  rec.ranks = long_field(rec.run, "ranks");
  if (!rec.run.contains("scenarios") || !rec.run["scenarios"].is_array()) {
    throw InputError(path + ": missing \"scenarios\" (expected an array)");
  }
  for (const json& s : rec.run["scenarios"]) {
    if (!s.is_object()) throw InputError(path + ": a scenario is not an object");
    RecordedScenario scenario;
    scenario.name = string_field(s, "name");
    if (scenario.name.empty()) throw InputError(path + ": a scenario has no name");
    scenario.status = string_field(s, "status");
    scenario.message = string_field(s, "message");
    scenario.steps_planned = long_field(s, "steps_planned");
    scenario.steps_completed = long_field(s, "steps_completed");
    scenario.result = s.contains("result") ? s["result"] : json();
    rec.scenarios.push_back(std::move(scenario));
  }
}

void read_metrics(const std::string& path, Recording& rec) {
  std::ifstream in(path);
  if (!in) throw InputError(path + ": cannot read the recording's metrics");
  std::string text;
  long line = 0;
  while (std::getline(in, text)) {
    ++line;
    if (text.empty()) continue;
    json event = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (event.is_discarded() || !event.is_object()) {
      rec.metrics_problems.push_back(
          {line, "",
           "metrics.jsonl:" + std::to_string(line) + ": not a JSON object (truncated or edited)"});
      continue;
    }
    const std::string scenario = string_field(event, "scenario");
    if (!event.contains("v") || event["v"] != kMetricsFormatVersion) {
      rec.metrics_problems.push_back({line, scenario,
                                      "metrics.jsonl:" + std::to_string(line) +
                                          ": metrics version " + event.value("v", json()).dump() +
                                          " is not one this grader knows (expected " +
                                          std::to_string(kMetricsFormatVersion) + ")"});
      continue;
    }
    if (scenario.empty()) {
      rec.metrics_problems.push_back(
          {line, "", "metrics.jsonl:" + std::to_string(line) + ": event has no \"scenario\""});
      continue;
    }
    if (!event.contains("ts") || !event["ts"].is_number()) {
      rec.metrics_problems.push_back(
          {line, scenario,
           "metrics.jsonl:" + std::to_string(line) + ": event has no time (\"ts\")"});
      continue;
    }
    // Runner events (scenario_start, counters, scenario_end) have no rank;
    // they are kept under rank -1.
    const int rank =
        event.contains("rank") && event["rank"].is_number_integer() ? event["rank"].get<int>() : -1;
    event["line"] = line;
    rec.events[scenario][rank].push_back(std::move(event));
  }
}

}  // namespace

Recording load_recording(const std::string& dir) {
  if (!fs::is_directory(dir)) throw InputError(dir + ": no such recording directory");
  Recording rec;
  rec.dir = dir;
  const std::string manifest = (fs::path(dir) / "run.json").string();
  if (!fs::exists(manifest))
    throw InputError(manifest + ": missing; is " + dir + " a run directory?");
  read_manifest(manifest, rec);
  const std::string metrics = (fs::path(dir) / "metrics.jsonl").string();
  if (!fs::exists(metrics)) throw InputError(metrics + ": missing; the recording has no metrics");
  read_metrics(metrics, rec);
  return rec;
}

std::string newest_run_dir(const std::string& runs_dir, const std::string& lab_id) {
  std::string newest;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(runs_dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(lab_id + "-", 0) != 0 || !fs::exists(entry.path() / "run.json")) continue;
    if (name > fs::path(newest).filename().string()) newest = entry.path().string();
  }
  if (newest.empty()) {
    throw InputError("no recording of lab " + lab_id + " under " + runs_dir +
                     "/ (run `fabriclab run " + lab_id + "` first, or pass --recording DIR)");
  }
  return newest;
}

}  // namespace fabriclab::runner::grading
