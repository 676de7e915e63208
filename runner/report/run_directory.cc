#include "runner/report/run_directory.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

#include "common/input_error.h"

namespace fabriclab::runner::report {
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

// The fields the report reads, checked here so errors carry the line.
void check_fields(const json& event, const std::string& kind, const std::string& path, long line) {
  static const std::map<std::string, std::vector<const char*>> kNumericFields = {
      {"step", {"rank", "step", "ts", "step_ms", "comm_ms", "loss"}},
      {"eval", {"accuracy"}},
      {"counters", {"retransmits", "drops", "link_bytes"}},
  };
  const auto fields = kNumericFields.find(kind);
  if (fields == kNumericFields.end()) return;
  for (const char* key : fields->second) {
    auto it = event.find(key);
    if (it == event.end() || !it->is_number()) {
      throw input_error_at(path, line,
                           kind + " event: field '" + key + "': expected a number" +
                               (it == event.end() ? ", it is missing" : ", got " + it->dump()));
    }
  }
}

}  // namespace

json parse_run_manifest(const std::string& text, const std::string& path) {
  json manifest;
  try {
    manifest = json::parse(text);
  } catch (const json::parse_error& error) {
    throw input_error_at(path, line_of_byte(text, error.byte),
                         std::string("not valid JSON: ") + error.what());
  }
  if (!manifest.is_object())
    throw input_error_at(path, 1, "expected a JSON object (the run manifest)");
  const json format = manifest.value("format", json());
  if (!format.is_null() && format != "fabriclab-run") {
    throw input_error_at(path, 1,
                         "field 'format': expected \"fabriclab-run\", got " + format.dump());
  }
  const json scenarios = manifest.value("scenarios", json::array());
  if (!scenarios.is_array()) throw input_error_at(path, 1, "field 'scenarios': expected an array");
  for (const json& scenario : scenarios) {
    if (!scenario.is_object() || !scenario.contains("name") || !scenario["name"].is_string()) {
      throw input_error_at(
          path, 1, "field 'scenarios': every entry needs a string 'name', got " + scenario.dump());
    }
  }
  return manifest;
}

std::vector<json> parse_metrics_lines(const std::string& text, const std::string& path) {
  std::vector<json> events;
  std::istringstream in(text);
  std::string line;
  long line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    json event;
    try {
      event = json::parse(line);
    } catch (const json::parse_error& error) {
      // nlohmann's message starts "[json.exception.parse_error.101] parse
      // error at line 1, column N: ..."; keep the part after "parse error".
      std::string what = error.what();
      const auto at = what.find("parse error");
      throw input_error_at(path, line_number,
                           "not valid JSON: " + (at == std::string::npos ? what : what.substr(at)));
    }
    if (!event.is_object())
      throw input_error_at(path, line_number, "expected a JSON object per line");
    const auto kind = event.find("event");
    if (kind == event.end() || !kind->is_string()) {
      throw input_error_at(path, line_number, "field 'event': expected a string");
    }
    check_fields(event, kind->get<std::string>(), path, line_number);
    events.push_back(std::move(event));
  }
  return events;
}

RunDirectory read_run_directory(const std::filesystem::path& dir) {
  std::error_code error;
  if (!std::filesystem::is_directory(dir, error)) {
    throw InputError(
        dir.string() +
        ": not a directory (expected a run directory with run.json and metrics.jsonl)");
  }
  RunDirectory run;
  run.path = dir;
  const auto manifest_path = dir / "run.json";
  const auto metrics_path = dir / "metrics.jsonl";
  const std::string hint = "is " + dir.string() + " a fabriclab run directory?";
  run.manifest = parse_run_manifest(read_file(manifest_path, hint), manifest_path.string());
  const std::vector<json> events =
      parse_metrics_lines(read_file(metrics_path, hint), metrics_path.string());

  for (const json& scenario : run.manifest.value("scenarios", json::array())) {
    const std::string name = scenario["name"].get<std::string>();
    if (run.events.emplace(name, std::vector<json>()).second) run.scenario_names.push_back(name);
  }
  for (const json& event : events) {
    const auto scenario = event.find("scenario");
    if (scenario == event.end() || !scenario->is_string()) continue;  // run-level event
    const std::string name = scenario->get<std::string>();
    auto [it, inserted] = run.events.try_emplace(name);
    if (inserted) run.scenario_names.push_back(name);
    it->second.push_back(event);
  }
  return run;
}

}  // namespace fabriclab::runner::report
