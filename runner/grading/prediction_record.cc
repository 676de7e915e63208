#include "runner/grading/prediction_record.h"

#include <spdlog/fmt/fmt.h>

#include <cmath>
#include <ctime>
#include <filesystem>

#include "common/input_error.h"
#include "runner/rundir/json_line.h"

namespace fabriclab::runner::grading {

using nlohmann::json;

std::vector<RecordedPrediction> take_predictions(const LabDefinition& lab, const Answers& answers,
                                                 double now_unix_s) {
  std::vector<RecordedPrediction> taken;
  for (const Exercise& ex : lab.exercises) {
    if (ex.kind != Kind::kPrediction) continue;
    const auto answer = answers.find(ex.id);
    if (answer == answers.end() || !answer->second.given) continue;
    taken.push_back({ex.id, answer->second.number, now_unix_s, ex.before, std::nullopt});
  }
  return taken;
}

void mark_scenario_started(std::vector<RecordedPrediction>& predictions,
                           const std::string& scenario, double started_unix_s) {
  for (RecordedPrediction& p : predictions) {
    if (p.before == scenario && !p.before_scenario_started_unix_s)
      p.before_scenario_started_unix_s = started_unix_s;
  }
}

json predictions_json(const std::vector<RecordedPrediction>& predictions) {
  json out = json::array();
  for (const RecordedPrediction& p : predictions) {
    out.push_back({{"id", p.id},
                   {"value", p.value},
                   {"recorded_unix_s", p.recorded_unix_s},
                   {"before", p.before},
                   {"before_scenario_started_unix_s", p.before_scenario_started_unix_s
                                                          ? json(*p.before_scenario_started_unix_s)
                                                          : json()}});
  }
  return out;
}

std::vector<RecordedPrediction> read_predictions(const std::string& manifest_path,
                                                 const std::string& manifest_text,
                                                 const json& run) {
  std::vector<RecordedPrediction> out;
  if (!run.contains("predictions")) return out;
  const json& list = run["predictions"];
  const auto fail = [&](const std::vector<std::string>& members, const std::string& message) {
    return input_error_at(manifest_path, rundir::json_line_of(manifest_text, members),
                          "field 'predictions" + message);
  };
  if (!list.is_array()) throw fail({"predictions"}, "': expected an array of {id, value, ...}");
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string index = std::to_string(i);
    const json& entry = list[i];
    const std::string where = "[" + index + "]";
    if (!entry.is_object())
      throw fail({"predictions", index}, where + "': expected an object {id, value, ...}");
    const auto number = [&](const char* key, bool nullable) -> std::optional<double> {
      const json& v = entry.value(key, json());
      if (v.is_number() && std::isfinite(v.get<double>())) return v.get<double>();
      if (nullable && v.is_null()) return std::nullopt;
      throw fail({"predictions", index, key},
                 where + "." + key + "': expected a number" + (nullable ? " or null" : "") +
                     ", got " + v.dump());
    };
    const auto text = [&](const char* key) {
      const json& v = entry.value(key, json());
      if (!v.is_string() || v.get<std::string>().empty())
        throw fail({"predictions", index, key},
                   where + "." + key + "': expected a non-empty string, got " + v.dump());
      return v.get<std::string>();
    };
    RecordedPrediction p;
    p.id = text("id");
    p.value = *number("value", false);
    p.recorded_unix_s = *number("recorded_unix_s", false);
    p.before = text("before");
    p.before_scenario_started_unix_s = number("before_scenario_started_unix_s", true);
    out.push_back(std::move(p));
  }
  return out;
}

std::string prediction_line(const Exercise& ex, const RecordedPrediction* taken,
                            const std::string& answers_path, const std::string& lab_id) {
  const std::string head = fmt::format("   prediction {} (before scenario {}): ", ex.id, ex.before);
  if (!taken && !std::filesystem::exists(answers_path)) {
    return head + "none, no " + answers_path + " (`fabriclab grade " + lab_id +
           " --init` writes it; predict there before the next run)\n";
  }
  if (!taken) {
    return head + "none in " + answers_path +
           " -- not recorded, it earns nothing (write it there before the next run)\n";
  }
  const std::time_t t = static_cast<std::time_t>(taken->recorded_unix_s);
  std::tm utc{};
  gmtime_r(&t, &utc);
  char clock[16];
  std::strftime(clock, sizeof clock, "%H:%M:%S", &utc);
  return head + fmt::format("{:g}{} recorded at {} UTC from {}\n", taken->value,
                            ex.unit.empty() ? "" : " " + ex.unit, clock, answers_path);
}

}  // namespace fabriclab::runner::grading
