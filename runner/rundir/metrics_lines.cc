// metrics.jsonl, line by line: the rules of run_reader.h for each line.
#include <map>
#include <sstream>

#include "runner/rundir/run_reader.h"

namespace fabriclab::runner::rundir {
namespace {

using nlohmann::json;

std::string scenario_of(const json& event) {
  auto it = event.is_object() ? event.find("scenario") : event.end();
  return it != event.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// The first thing wrong with one parsed metrics line, or "" when nothing is.
std::string problem_of(const json& event) {
  if (!event.is_object()) return "expected a JSON object per line";
  const auto kind = event.find("event");
  if (kind == event.end() || !kind->is_string()) return "field 'event': expected a string";
  const auto version = event.find("v");
  if (version != event.end() &&
      !(version->is_number_integer() && *version >= kOldestMetricsFormatVersion &&
        *version <= kMetricsFormatVersion)) {
    return "metrics version " + version->dump() + " is not one fabriclab knows (expected " +
           std::to_string(kOldestMetricsFormatVersion) + " to " +
           std::to_string(kMetricsFormatVersion) + ")";
  }
  // The fields the report reads, checked here so errors carry the line.
  static const std::map<std::string, std::vector<const char*>> kNumericFields = {
      {"step", {"rank", "step", "ts", "step_ms", "comm_ms"}},
      {"eval", {"accuracy"}},
      {"counters", {"retransmits", "drops", "link_bytes"}},
      {"flow", {"goodput_gbps", "retx_share"}},
  };
  const std::string name = kind->get<std::string>();
  const auto fields = kNumericFields.find(name);
  for (const char* key :
       fields == kNumericFields.end() ? std::vector<const char*>() : fields->second) {
    auto it = event.find(key);
    if (it == event.end() || !it->is_number()) {
      return name + " event: field '" + key + "': expected a number" +
             (it == event.end() ? ", it is missing" : ", got " + it->dump());
    }
  }
  // A step's loss may be absent (a workload that trains nothing:
  // allreduce), never of another type.
  const auto loss = event.find("loss");
  if (name == "step" && loss != event.end() && !loss->is_number())
    return "step event: field 'loss': expected a number, got " + loss->dump();
  const auto status = event.find("status");
  if (name == "scenario_end" && status != event.end() &&
      !(status->is_string() && scenario_status_from_string(status->get<std::string>()))) {
    return "scenario_end event: field 'status': unknown status " + status->dump() + " (expected " +
           scenario_status_words() + ")";
  }
  return "";
}

}  // namespace

std::string describe(const MetricsProblem& problem) {
  return std::string(kMetricsFile) + ":" + std::to_string(problem.line) + ": " + problem.message;
}

MetricsLines parse_metrics(const std::string& text) {
  MetricsLines out;
  std::istringstream in(text);
  std::string line;
  long line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    json event;
    try {
      event = json::parse(line);
    } catch (const json::exception& error) {
      // nlohmann's message starts "[json.exception.parse_error.101] parse
      // error at line 1, column N: ..."; keep the part after "parse error".
      // A number too large for a double is out_of_range.406 ("number
      // overflow parsing '1e999'"): keep what follows the bracket.
      std::string what = error.what();
      const auto at = what.find("parse error");
      const auto bracket = what.find("] ");
      out.problems.push_back(
          {line_number, "",
           "not valid JSON: " + (at != std::string::npos        ? what.substr(at)
                                 : bracket != std::string::npos ? what.substr(bracket + 2)
                                                                : what)});
      continue;
    }
    const std::string problem = problem_of(event);
    if (!problem.empty()) {
      out.problems.push_back({line_number, scenario_of(event), problem});
      continue;
    }
    out.events.push_back({line_number, std::move(event)});
  }
  return out;
}

}  // namespace fabriclab::runner::rundir
