#include "runner/rundir/run_reader.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "common/input_error.h"
#include "common/json_error.h"
#include "runner/rundir/json_line.h"

namespace fabriclab::runner::rundir {
namespace {

using nlohmann::json;

std::string read_file(const std::filesystem::path& path, const std::string& what_it_is) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::error_code error;
    if (!std::filesystem::exists(path, error)) {
      throw InputError(path.string() + ": not found: " + what_it_is);
    }
    throw InputError(path.string() + ": cannot be read");
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The line of byte offset `byte` (1-based, as nlohmann's parse_error counts).
long line_of_byte(const std::string& text, size_t byte) {
  const size_t end = std::min(byte, text.size());
  return 1 + std::count(text.begin(), text.begin() + static_cast<long>(end), '\n');
}

std::string string_field(const json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

long long_field(const json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() ? json_count(*it) : 0;
}

// Where run.json's problems are: `text` is the file (for line numbers) and
// `path` its name.
struct ManifestPlace {
  const std::string& path;
  const std::string& text;

  InputError at(const std::vector<std::string>& members, const std::string& message) const {
    return input_error_at(path, text.empty() ? 1 : json_line_of(text, members), message);
  }
};

// The JSON type FORMAT.md gives a field of run.json; checked when present.
enum class Kind { kString, kInteger, kNumber, kBoolean, kObject, kArray, kStringOrNull };

bool is_kind(const json& value, Kind kind) {
  switch (kind) {
    case Kind::kString: return value.is_string();
    case Kind::kInteger: return value.is_number_integer();
    case Kind::kNumber: return value.is_number();
    case Kind::kBoolean: return value.is_boolean();
    case Kind::kObject: return value.is_object();
    case Kind::kArray: return value.is_array();
    case Kind::kStringOrNull: return value.is_string() || value.is_null();
  }
  return false;
}

const char* kind_name(Kind kind) {
  switch (kind) {
    case Kind::kString: return "a string";
    case Kind::kInteger: return "an integer";
    case Kind::kNumber: return "a number";
    case Kind::kBoolean: return "true or false";
    case Kind::kObject: return "an object";
    case Kind::kArray: return "an array";
    case Kind::kStringOrNull: return "a string or null";
  }
  return "";
}

// Each of `fields` present in `object` has its type; `members` is where
// `object` is in run.json, `label` how a message names it ("" or
// "scenario 'clean': ").
void check_kinds(const json& object, const std::map<std::string, Kind>& fields,
                 const ManifestPlace& where, std::vector<std::string> members,
                 const std::string& label) {
  for (const auto& [key, kind] : fields) {
    const auto it = object.find(key);
    if (it == object.end() || is_kind(*it, kind)) continue;
    std::string shown = it->dump();
    if (shown.size() > 40) shown = shown.substr(0, 37) + "...";
    members.push_back(key);
    throw where.at(members, label + "field '" + key + "': expected " + kind_name(kind) + ", got " +
                                shown);
  }
}

const std::map<std::string, Kind> kRunFields = {
    {"lab", Kind::kObject},           {"run_id", Kind::kString},
    {"seed", Kind::kInteger},         {"started_unix_s", Kind::kNumber},
    {"ended_unix_s", Kind::kNumber},  {"quick", Kind::kBoolean},
    {"mode", Kind::kString},          {"privileges", Kind::kString},
    {"backend", Kind::kString},       {"backend_why", Kind::kString},
    {"kernel", Kind::kString},        {"host", Kind::kString},
    {"versions", Kind::kObject},      {"ranks", Kind::kInteger},
    {"fabric", Kind::kString},        {"segmentation_offload", Kind::kBoolean},
    {"lab_sysctl", Kind::kString},    {"workload", Kind::kString},
    {"trainer", Kind::kObject},       {"charts", Kind::kArray},
    {"tables", Kind::kArray},         {"fabric_links", Kind::kObject},
    {"network", Kind::kObject},       {"status", Kind::kString},
    {"error", Kind::kString},         {"lesson", Kind::kObject},
    {"predictions", Kind::kArray}};
const std::map<std::string, Kind> kLabFields = {
    {"id", Kind::kString}, {"name", Kind::kString}, {"title", Kind::kString}};
const std::map<std::string, Kind> kScenarioFields = {
    {"condition", Kind::kString},     {"impairments", Kind::kArray},
    {"message", Kind::kString},       {"started_unix_s", Kind::kNumber},
    {"ended_unix_s", Kind::kNumber},  {"steps_planned", Kind::kInteger},
    {"steps_completed", Kind::kInteger}, {"link_picks", Kind::kObject},
    {"workload", Kind::kObject},      {"baseline", Kind::kStringOrNull},
    {"ranks", Kind::kInteger},        {"sweep", Kind::kObject},
    {"placement", Kind::kArray},      {"rdma", Kind::kObject}};

RecordedScenario scenario_of(const json& entry, const ManifestPlace& where, size_t index) {
  const std::string i = std::to_string(index);
  RecordedScenario scenario;
  scenario.name = entry["name"].get<std::string>();
  if (entry.contains("status")) {
    const json& word = entry["status"];
    scenario.status =
        word.is_string() ? scenario_status_from_string(word.get<std::string>()) : std::nullopt;
    if (!scenario.status) {
      throw where.at({"scenarios", i, "status"},
                     "scenario '" + scenario.name + "': field 'status': unknown status " +
                         word.dump() + " (expected " + scenario_status_words() + ")");
    }
  }
  check_kinds(entry, kScenarioFields, where, {"scenarios", i}, "scenario '" + scenario.name + "': ");
  scenario.message = string_field(entry, "message");
  scenario.steps_planned = long_field(entry, "steps_planned");
  scenario.steps_completed = long_field(entry, "steps_completed");
  scenario.result = entry.contains("result") ? entry["result"] : json();
  // An object; its fields' kinds are the result parts' to check
  // (runner/report/result/recorded_results.h): which are figures and which
  // names is declared there.
  if (!scenario.result.is_null() && !scenario.result.is_object()) {
    throw where.at({"scenarios", i, "result"},
                   "scenario '" + scenario.name + "': field 'result': expected an object");
  }
  scenario.rdma = entry.contains("rdma") ? entry["rdma"] : json();
  scenario.ranks = long_field(entry, "ranks");
  if (entry.contains("baseline")) {
    const json& baseline = entry["baseline"];
    if (!baseline.is_null() && !baseline.is_string()) {
      throw where.at({"scenarios", i, "baseline"},
                     "scenario '" + scenario.name +
                         "': field 'baseline': expected a scenario name or null, got " +
                         baseline.dump());
    }
    scenario.baseline = baseline.is_string() ? baseline.get<std::string>() : "";
  }
  return scenario;
}

}  // namespace

long json_count(const json& value, long fallback) {
  if (value.is_number_integer()) return value.get<long>();  // unsigned: wraps, defined
  if (!value.is_number_float()) return fallback;
  const double v = value.get<double>();
  // 2^63 as a double: the first value past long's range.
  if (!(v > -9223372036854775808.0 && v < 9223372036854775808.0)) return fallback;
  return static_cast<long>(v);
}

double json_number(const json& object, const char* key, double fallback) {
  if (!object.is_object()) return fallback;
  const auto it = object.find(key);
  return it != object.end() && it->is_number() ? it->get<double>() : fallback;
}

const RecordedScenario* RunDirectory::scenario(const std::string& name) const {
  for (const RecordedScenario& s : scenarios) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

json parse_run_manifest(const std::string& text, const std::string& path) {
  const ManifestPlace where{path, text};
  json manifest;
  try {
    manifest = json::parse(text);
  } catch (const json::parse_error& error) {
    throw input_error_at(path, line_of_byte(text, error.byte),
                         "not valid JSON: " + json_error_text(error));
  } catch (const json::exception& error) {
    // A number too large for a double ("1e400"): the message quotes it.
    const std::string message = error.what();
    const size_t quote = message.find('\'');
    const std::string token = quote == std::string::npos ? "" : message.substr(quote + 1, message.find('\'', quote + 1) - quote - 1);
    const size_t at = token.empty() ? std::string::npos : text.find(token);
    throw input_error_at(path, at == std::string::npos ? 1 : line_of_byte(text, at),
                         "not valid JSON: " + json_error_text(error));
  }
  if (!manifest.is_object())
    throw input_error_at(path, 1, "expected a JSON object (the run manifest)");
  const json format = manifest.value("format", json());
  if (!format.is_null() && format != kRunFormatName) {
    throw where.at({"format"}, "field 'format': expected \"fabriclab-run\", got " + format.dump());
  }
  const json version = manifest.value("version", json());
  if (!version.is_null() && version != kRunFormatVersion) {
    throw where.at({"version"}, "field 'version': run.json version " + version.dump() +
                                    " is not one fabriclab knows (expected " +
                                    std::to_string(kRunFormatVersion) + ")");
  }
  check_kinds(manifest, kRunFields, where, {}, "");
  if (manifest.contains("lab")) check_kinds(manifest["lab"], kLabFields, where, {"lab"}, "lab: ");
  const json scenarios = manifest.value("scenarios", json::array());
  if (!scenarios.is_array()) throw where.at({"scenarios"}, "field 'scenarios': expected an array");
  std::set<std::string> names;
  for (size_t i = 0; i < scenarios.size(); ++i) {
    const json& scenario = scenarios[i];
    if (!scenario.is_object() || !scenario.contains("name") || !scenario["name"].is_string() ||
        scenario["name"].get<std::string>().empty()) {
      std::string shown = scenario.dump();
      if (shown.size() > 80) shown = shown.substr(0, 77) + "...";
      throw where.at({"scenarios", std::to_string(i), "name"},
                     "field 'scenarios': every entry needs a string 'name', got " + shown);
    }
    scenario_of(scenario, where, i);  // checks its fields
    if (!names.insert(scenario["name"].get<std::string>()).second) {
      throw where.at({"scenarios", std::to_string(i), "name"},
                     "field 'scenarios': a second scenario named '" +
                         scenario["name"].get<std::string>() + "' (names are unique)");
    }
  }
  return manifest;
}

namespace {

// What both readers say when `dir` is not a run directory at all.
std::string require_run_directory(const std::filesystem::path& dir) {
  std::error_code error;
  if (!std::filesystem::is_directory(dir, error)) {
    throw InputError(dir.string() +
                     ": no such recording directory (not a directory; expected a run directory "
                     "with run.json and metrics.jsonl)");
  }
  return "is " + dir.string() + " a fabriclab run directory?";
}

}  // namespace

nlohmann::json read_run_manifest(const std::filesystem::path& dir) {
  const std::string hint = require_run_directory(dir);
  const auto manifest_path = dir / kManifestFile;
  return parse_run_manifest(read_file(manifest_path, hint), manifest_path.string());
}

RunDirectory read_run(const std::filesystem::path& dir) {
  const std::string hint = require_run_directory(dir);
  RunDirectory run;
  run.path = dir;
  const auto manifest_path = dir / kManifestFile;
  const auto metrics_path = dir / kMetricsFile;
  run.manifest_text = read_file(manifest_path, hint);
  run.manifest = parse_run_manifest(run.manifest_text, manifest_path.string());
  MetricsLines lines = parse_metrics(read_file(metrics_path, hint));
  run.metrics = std::move(lines.events);
  run.problems = std::move(lines.problems);

  const std::string manifest_name = manifest_path.string();
  const ManifestPlace where{manifest_name, run.manifest_text};
  for (const json& scenario : run.manifest.value("scenarios", json::array())) {
    run.scenarios.push_back(scenario_of(scenario, where, run.scenarios.size()));
    const std::string& name = run.scenarios.back().name;
    if (run.events.emplace(name, std::vector<json>()).second) run.scenario_names.push_back(name);
  }
  for (const MetricsEvent& line : run.metrics) {
    const auto scenario = line.event.find("scenario");
    if (scenario == line.event.end() || !scenario->is_string()) continue;  // run-level event
    const std::string name = scenario->get<std::string>();
    auto [it, inserted] = run.events.try_emplace(name);
    if (inserted) run.scenario_names.push_back(name);
    it->second.push_back(line.event);
  }
  return run;
}

}  // namespace fabriclab::runner::rundir
