#include "runner/rundir/run_reader.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "common/input_error.h"

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

RecordedScenario scenario_of(const json& entry, const std::string& path) {
  RecordedScenario scenario;
  scenario.name = entry["name"].get<std::string>();
  if (entry.contains("status")) {
    const json& word = entry["status"];
    scenario.status =
        word.is_string() ? scenario_status_from_string(word.get<std::string>()) : std::nullopt;
    if (!scenario.status) {
      throw input_error_at(path, 1,
                           "scenario '" + scenario.name + "': field 'status': unknown status " +
                               word.dump() + " (expected " + scenario_status_words() + ")");
    }
  }
  scenario.message = string_field(entry, "message");
  scenario.steps_planned = long_field(entry, "steps_planned");
  scenario.steps_completed = long_field(entry, "steps_completed");
  scenario.result = entry.contains("result") ? entry["result"] : json();
  scenario.ranks = long_field(entry, "ranks");
  if (entry.contains("baseline")) {
    const json& baseline = entry["baseline"];
    if (!baseline.is_null() && !baseline.is_string()) {
      throw input_error_at(path, 1,
                           "scenario '" + scenario.name +
                               "': field 'baseline': expected a scenario name or null");
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
  json manifest;
  try {
    manifest = json::parse(text);
  } catch (const json::parse_error& error) {
    throw input_error_at(path, line_of_byte(text, error.byte),
                         std::string("not valid JSON: ") + error.what());
  } catch (const json::out_of_range& error) {
    // A number too large for a double ("number overflow parsing '1e999'"):
    // nlohmann gives no position, so find the number it quotes.
    const std::string what = error.what();
    const size_t open = what.find('\'');
    const size_t close = what.rfind('\'');
    const size_t at = open < close ? text.find(what.substr(open + 1, close - open - 1)) : 0;
    throw input_error_at(path, line_of_byte(text, at == std::string::npos ? 0 : at),
                         "not valid JSON: " + what.substr(what.find("] ") + 2));
  }
  if (!manifest.is_object())
    throw input_error_at(path, 1, "expected a JSON object (the run manifest)");
  const json format = manifest.value("format", json());
  if (!format.is_null() && format != kRunFormatName) {
    throw input_error_at(path, 1,
                         "field 'format': expected \"fabriclab-run\", got " + format.dump());
  }
  const json version = manifest.value("version", json());
  if (!version.is_null() && version != kRunFormatVersion) {
    throw input_error_at(path, 1,
                         "field 'version': run.json version " + version.dump() +
                             " is not one fabriclab knows (expected " +
                             std::to_string(kRunFormatVersion) + ")");
  }
  const json scenarios = manifest.value("scenarios", json::array());
  if (!scenarios.is_array()) throw input_error_at(path, 1, "field 'scenarios': expected an array");
  for (const json& scenario : scenarios) {
    if (!scenario.is_object() || !scenario.contains("name") || !scenario["name"].is_string() ||
        scenario["name"].get<std::string>().empty()) {
      throw input_error_at(
          path, 1, "field 'scenarios': every entry needs a string 'name', got " + scenario.dump());
    }
    scenario_of(scenario, path);  // checks the status
  }
  return manifest;
}

RunDirectory read_run(const std::filesystem::path& dir) {
  std::error_code error;
  if (!std::filesystem::is_directory(dir, error)) {
    throw InputError(dir.string() +
                     ": no such recording directory (not a directory; expected a run directory "
                     "with run.json and metrics.jsonl)");
  }
  RunDirectory run;
  run.path = dir;
  const auto manifest_path = dir / kManifestFile;
  const auto metrics_path = dir / kMetricsFile;
  const std::string hint = "is " + dir.string() + " a fabriclab run directory?";
  run.manifest = parse_run_manifest(read_file(manifest_path, hint), manifest_path.string());
  MetricsLines lines = parse_metrics(read_file(metrics_path, hint));
  run.metrics = std::move(lines.events);
  run.problems = std::move(lines.problems);

  for (const json& scenario : run.manifest.value("scenarios", json::array())) {
    run.scenarios.push_back(scenario_of(scenario, manifest_path.string()));
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
