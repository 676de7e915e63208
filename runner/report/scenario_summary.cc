#include "runner/report/scenario_summary.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "runner/report/result/result_parts.h"
#include "runner/report/wire_bytes.h"

namespace fabriclab::runner::report {
using nlohmann::json;

std::string status_word(const ScenarioSummary& summary) {
  return summary.status ? rundir::to_string(*summary.status) : "unknown";
}

double median_of(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

double percentile_nearest_rank(std::vector<double> values, double percent) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  // Nearest rank: the smallest value with at least `percent`% of the values
  // at or below it. The epsilon keeps 0.99 * 100 from rounding up to 100.
  const double rank = std::ceil(percent / 100.0 * values.size() - 1e-9);
  const size_t index = static_cast<size_t>(std::max(1.0, rank)) - 1;
  return values[std::min(index, values.size() - 1)];
}

ScenarioResult summarize_scenario(const std::vector<json>& events) {
  return summarize_scenario(events, summarize_wire_bytes(events), rank_view(events));
}

// Every part in table order (result/result_parts.cc), each from the events.
ScenarioResult summarize_scenario(const std::vector<json>& events, const WireBytes& wire,
                                  const RankView& view) {
  ScenarioResult result;
  const ScenarioEvents in{events, wire, view};
  for (const ResultPart& part : result_parts())
    if (part.compute) part.compute(in, result);  // a part may only relate
  return result;
}

void compute_slowdowns(std::vector<ScenarioSummary>& summaries, const std::string& clean_name) {
  const auto completed = [&](const std::string& name) -> const ScenarioSummary* {
    for (const ScenarioSummary& summary : summaries) {
      if (summary.name == name && summary.status == rundir::ScenarioStatus::kCompleted)
        return &summary;
    }
    return nullptr;
  };
  for (ScenarioSummary& summary : summaries) {
    const std::string baseline = summary.baseline.value_or(clean_name);
    const ScenarioSummary* base = baseline.empty() ? nullptr : completed(baseline);
    for (const ResultPart& part : result_parts())
      if (part.relate) part.relate(summary, base, summary.result);
    // A scenario cut off by its deadline: a lower bound of its slowdown.
    summary.slowdown_at_least.reset();
    if (base && base->result.wall_s > 0 &&
        summary.status == rundir::ScenarioStatus::kDeadline && summary.result.wall_s > 0) {
      summary.slowdown_at_least =
          std::max(summary.result.wall_s, summary.cut_off_after_s.value_or(0)) /
          base->result.wall_s;
    }
  }
}

namespace {

// The `impair` words run.json says a scenario put on all its links (one
// entry, links ["all"]), "" otherwise: none, one rank's link, or overrides
// -- then no one delay is every link's.
std::string one_impairment(const json& scenario) {
  const json impairments = scenario.value("impairments", json());
  if (!impairments.is_array()) return "";
  std::string value;
  int entries = 0;
  for (const json& entry : impairments) {
    if (!entry.is_object() || entry.value("key", std::string("impair")) != "impair") continue;
    ++entries;
    const json words = entry.contains("value") ? entry["value"] : entry.value("spec", json());
    if (entry.value("links", json()) == json::array({"all"}) && words.is_string())
      value = words.get<std::string>();
  }
  return entries == 1 ? value : "";
}

}  // namespace

std::vector<ScenarioSummary> summarize_run(const RunDirectory& run) {
  const json& manifest = run.manifest;
  std::map<std::string, json> declared;
  if (manifest.contains("scenarios") && manifest["scenarios"].is_array()) {
    for (const json& scenario : manifest["scenarios"]) {
      if (scenario.is_object() && scenario.contains("name") && scenario["name"].is_string()) {
        declared[scenario["name"].get<std::string>()] = scenario;
      }
    }
  }
  std::optional<int> trainer_steps;
  if (manifest.contains("trainer") && manifest["trainer"].is_object()) {
    const json& steps = manifest["trainer"].value("steps", json());
    if (steps.is_number_integer()) trainer_steps = steps.get<int>();
  }

  std::vector<ScenarioSummary> summaries;
  for (const std::string& name : run.scenario_names) {
    const json scenario = declared.count(name) ? declared[name] : json::object();
    const auto events_it = run.events.find(name);
    static const std::vector<json> kNoEvents;
    const std::vector<json>& events = events_it == run.events.end() ? kNoEvents : events_it->second;

    ScenarioSummary summary;
    summary.name = name;
    auto text = [&](const char* key) {
      const json value = scenario.value(key, json());
      return value.is_string() ? value.get<std::string>() : std::string();
    };
    summary.condition = text("condition");
    if (scenario.contains("baseline")) summary.baseline = text("baseline");
    if (const json sweep = scenario.value("sweep", json()); sweep.is_object()) {
      summary.sweep = sweep.value("name", std::string());
      summary.sweep_value = sweep.value("value", 0.0);
    }
    // The reader has checked every status word.
    summary.status = rundir::scenario_status_from_string(text("status"));
    summary.message = text("message");
    summary.impair = one_impairment(scenario);
    for (const json& event : events) {
      if (event.value("event", std::string()) != "scenario_end") continue;
      if (!summary.status) {
        const json word = event.value("status", json());
        if (word.is_string())
          summary.status = rundir::scenario_status_from_string(word.get<std::string>());
      }
      if (summary.message.empty()) summary.message = event.value("message", std::string());
    }
    const json planned = scenario.value("steps_planned", json());
    if (planned.is_number_integer()) {
      summary.steps_planned = planned.get<int>();
    } else {
      summary.steps_planned = trainer_steps;
    }
    summary.wire = summarize_wire_bytes(events);
    summary.ranks = rank_view(events);
    for (const json& event : events)
      if (event.value("event", std::string()) == "counters" && event.contains("queues") &&
          event["queues"].is_object())
        summary.ports = event["queues"];
    summary.result = summarize_scenario(events, summary.wire, summary.ranks);
    // How long it ran before it was cut off: from its first step's start.
    double first_step_start_s = std::numeric_limits<double>::infinity();
    double end_s = 0;
    for (const json& event : events) {
      const std::string kind = event.value("event", std::string());
      if (kind == "step" && event.contains("ts") && event.contains("step_ms")) {
        first_step_start_s = std::min(first_step_start_s, event.value("ts", 0.0) -
                                                              event.value("step_ms", 0.0) / 1000);
      } else if (kind == "scenario_end") {
        end_s = event.value("ts", 0.0);
      }
    }
    if (end_s > first_step_start_s) summary.cut_off_after_s = end_s - first_step_start_s;
    summaries.push_back(std::move(summary));
  }
  compute_slowdowns(summaries);
  return summaries;
}

// One conversion for every field, by the parts' declarations (result/).
void to_json(json& out, const ScenarioResult& result) { out = result_row_json(result); }

void from_json(const json& in, ScenarioResult& result) { result = result_from_row_json(in); }

}  // namespace fabriclab::runner::report
