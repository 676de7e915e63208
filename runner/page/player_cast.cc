#include "runner/page/player_cast.h"

#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "runner/cast/terminal_sanitizer.h"

namespace fabriclab::runner::page {
namespace {

using nlohmann::json;

constexpr const char* kScenarioPrefix = "scenario ";

// "scenario NAME: STATUS" (recordings/FORMAT.md) -> NAME, STATUS; false for
// any other label.
bool parse_scenario_marker(const std::string& label, std::string& name, std::string& status) {
  if (label.rfind(kScenarioPrefix, 0) != 0) return false;
  const std::size_t colon = label.rfind(": ");
  const std::size_t start = std::char_traits<char>::length(kScenarioPrefix);
  if (colon == std::string::npos || colon <= start) return false;
  name = label.substr(start, colon - start);
  status = label.substr(colon + 2);
  return !status.empty();
}

std::string marker_label(const std::string& name, const std::string& status) {
  if (status == "start") return name + " starts";
  if (status == "stalled") return name + " STALLED: stall declared";
  if (status == "deadline") return name + " DEADLINE: stopped at its deadline";
  if (status == "completed") return name + " completed";
  return name + " " + status;
}

std::string event_line(double time_s, const char* code, const std::string& data) {
  return json::array({time_s, code, data}).dump(-1, ' ', false, json::error_handler_t::replace) +
         "\n";
}

}  // namespace

PlayerCast player_cast(const Cast& cast) {
  PlayerCast out;
  json header = {{"version", kCastVersion},
                 {"width", cast.header.width},
                 {"height", cast.header.height},
                 {"title", plain_text(cast.header.title)}};
  if (cast.header.timestamp_unix_s) header["timestamp"] = *cast.header.timestamp_unix_s;
  out.asciicast = header.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";

  TerminalSanitizer sanitizer;
  std::vector<std::pair<double, std::string>> output;  // (time, sanitized text)
  for (const CastEvent& event : cast.events) {
    if (event.code == "o") {
      std::string text = sanitizer.feed(event.data);
      if (!text.empty()) output.emplace_back(event.time_s, std::move(text));
    } else if (event.code == "m") {
      std::string label = plain_text(event.data);
      std::string name, status;
      if (parse_scenario_marker(label, name, status)) label = marker_label(name, status);
      const bool merge =
          !out.labels.empty() && event.time_s - out.marker_times_s.back() < kMergeMarkersS;
      if (merge) {
        out.labels.back() += " / " + label;
      } else {
        out.labels.push_back(label);
        out.marker_times_s.push_back(event.time_s);
      }
      if (!name.empty()) {
        out.scenarios.push_back(
            {name, status, event.time_s, static_cast<int>(out.labels.size()) - 1});
      }
    }
  }
  std::string rest = sanitizer.finish();
  if (!rest.empty()) output.emplace_back(cast.duration_s(), std::move(rest));
  // The player refuses a recording without events ("recording is missing
  // events"); a run killed at once leaves just the header.
  if (output.empty() && out.labels.empty()) output.emplace_back(0.0, "");
  out.removed = sanitizer.removed();
  out.duration_s = cast.duration_s();

  // Markers go in as "m" events at their (first) time, not as the player's
  // `markers` option: the player shortens long pauses (idleTimeLimit) and
  // moves recorded events with them, but not the option's times. Both lists
  // are in time order; a marker goes after output of the same time.
  std::size_t m = 0;
  for (const auto& [time_s, text] : output) {
    for (; m < out.labels.size() && out.marker_times_s[m] < time_s; ++m) {
      out.asciicast += event_line(out.marker_times_s[m], "m", out.labels[m]);
    }
    out.asciicast += event_line(time_s, "o", text);
  }
  for (; m < out.labels.size(); ++m) {
    out.asciicast += event_line(out.marker_times_s[m], "m", out.labels[m]);
  }
  return out;
}

}  // namespace fabriclab::runner::page
