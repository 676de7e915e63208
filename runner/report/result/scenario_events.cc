#include "runner/report/result/scenario_events.h"

#include <algorithm>

#include "common/input_error.h"

namespace fabriclab::runner::report {

std::string event_kind(const nlohmann::json& event) { return event.value("event", std::string()); }

double number_field(const nlohmann::json& event, const char* key) {
  const auto it = event.find(key);
  if (it == event.end() || !it->is_number()) {
    throw InputError(event.value("event", std::string("?")) + " event: field '" + key +
                     "': expected a number");
  }
  return it->get<double>();
}

bool has_steps(const std::vector<nlohmann::json>& events) {
  return std::any_of(events.begin(), events.end(),
                     [](const nlohmann::json& event) { return event_kind(event) == "step"; });
}

int declared_world_size(const std::vector<nlohmann::json>& events) {
  int world_size = 0;
  for (const nlohmann::json& event : events) {
    if (event_kind(event) != "start") continue;
    const auto it = event.find("world_size");
    if (it != event.end() && it->is_number_integer())
      world_size = std::max(world_size, it->get<int>());
  }
  return world_size;
}

}  // namespace fabriclab::runner::report
