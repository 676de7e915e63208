#include "runner/grading/graded_run.h"

#include <algorithm>
#include <filesystem>

#include "common/input_error.h"
#include "runner/report/result/recorded_results.h"
#include "runner/rundir/json_line.h"

namespace fabriclab::runner::grading {

namespace fs = std::filesystem;
using nlohmann::json;

const RecordedScenario* GradedRun::scenario(const std::string& name) const {
  for (const RecordedScenario& s : scenarios) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

const std::vector<json>& GradedRun::rank_events(const std::string& scenario, int rank) const {
  static const std::vector<json> kNone;
  auto s = events.find(scenario);
  if (s == events.end()) return kNone;
  auto r = s->second.find(rank);
  return r == s->second.end() ? kNone : r->second;
}

namespace {

// What grading needs of run.json beyond the reader's rules.
void require_manifest_fields(const std::string& path, const std::string& text, GradedRun& rec) {
  const auto at = [&](const std::vector<std::string>& members, const std::string& message) {
    return input_error_at(path, rundir::json_line_of(text, members), message);
  };
  if (rec.run.value("format", "") != rundir::kRunFormatName) {
    throw at({"format"}, "not a fabriclab run manifest (expected \"format\": \"fabriclab-run\")");
  }
  if (!rec.run.contains("version")) {
    throw at({}, "run.json has no version (expected " + std::to_string(rundir::kRunFormatVersion) +
                     ")");
  }
  if (rec.run.contains("lab") && rec.run["lab"].is_object()) {
    rec.lab_id = rec.run["lab"].value("id", json()).is_string()
                     ? rec.run["lab"]["id"].get<std::string>()
                     : std::string();
  }
  if (rec.lab_id.empty()) throw at({"lab", "id"}, "field 'lab.id': expected the lab's id, a string like \"02\"");
  if (!rec.run.contains("scenarios") || !rec.run["scenarios"].is_array()) {
    throw at({"scenarios"}, "missing \"scenarios\" (expected an array)");
  }
}

// The grader's own rule for an event the reader accepted; "" when it holds.
std::string grading_problem(const json& event) {
  if (!event.contains("v")) {
    return "metrics version null is not one fabriclab knows (expected " +
           std::to_string(rundir::kOldestMetricsFormatVersion) + " to " +
           std::to_string(rundir::kMetricsFormatVersion) + ")";
  }
  if (!event.contains("scenario") || !event["scenario"].is_string()) {
    return "event has no \"scenario\"";
  }
  if (!event.contains("ts") || !event["ts"].is_number()) return "event has no time (\"ts\")";
  return "";
}

}  // namespace

GradedRun load_graded_run(const std::string& dir) {
  rundir::RunDirectory read = rundir::read_run(dir);
  report::check_recorded_results(read);  // run.json damage: exit 2, as the reader's own
  GradedRun rec;
  rec.dir = dir;
  rec.run = std::move(read.manifest);
  require_manifest_fields((fs::path(dir) / rundir::kManifestFile).string(), read.manifest_text, rec);
  if (rec.run.contains("seed") && rec.run["seed"].is_number_integer()) {
    rec.seed = rec.run["seed"].get<uint64_t>();
  }
  if (rec.run.contains("ranks")) rec.ranks = rundir::json_count(rec.run["ranks"]);
  rec.scenarios = std::move(read.scenarios);
  rec.predictions = read_predictions((fs::path(dir) / rundir::kManifestFile).string(),
                                     read.manifest_text, rec.run);

  std::vector<rundir::MetricsProblem> problems = std::move(read.problems);
  for (rundir::MetricsEvent& line : read.metrics) {
    const std::string problem = grading_problem(line.event);
    const std::string scenario = line.event.value("scenario", json()).is_string()
                                     ? line.event["scenario"].get<std::string>()
                                     : std::string();
    if (!problem.empty()) {
      problems.push_back({line.line, scenario, problem});
      continue;
    }
    const json& rank = line.event.value("rank", json());
    line.event["line"] = line.line;
    rec.events[scenario][rank.is_number_integer() ? rank.get<int>() : -1].push_back(
        std::move(line.event));
  }
  std::stable_sort(problems.begin(), problems.end(),
                   [](const auto& a, const auto& b) { return a.line < b.line; });
  for (const rundir::MetricsProblem& p : problems) {
    rec.metrics_problems.push_back({p.line, p.scenario, rundir::describe(p)});
  }
  return rec;
}

std::optional<std::string> find_newest_run_dir(const std::string& runs_dir,
                                               const std::string& lab_id) {
  std::string newest;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(runs_dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(lab_id + "-", 0) != 0 || !fs::exists(entry.path() / rundir::kManifestFile))
      continue;
    if (name > fs::path(newest).filename().string()) newest = entry.path().string();
  }
  if (newest.empty()) return std::nullopt;
  return newest;
}

std::string newest_run_dir(const std::string& runs_dir, const std::string& lab_id) {
  if (auto newest = find_newest_run_dir(runs_dir, lab_id)) return *newest;
  throw InputError("no recording of lab " + lab_id + " under " + runs_dir +
                   "/ (run `fabriclab run " + lab_id + "` first, or pass --recording DIR)");
}

LabDefinition lab_for_run(const LabDefinition& lab, const GradedRun& rec) {
  if (lab.draws.empty()) return lab;
  const Conditions recorded = conditions_from_json(rec.run.value("conditions", nlohmann::json()));
  if (recorded.empty()) return lab;  // every first choice: what load_lab() gave
  return load_lab(lab.path, false, recorded);
}

}  // namespace fabriclab::runner::grading
