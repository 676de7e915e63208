// Reading a scenario's metrics events (doc/metrics.md, recordings/FORMAT.md)
// for the result parts: the few things several parts need alike.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace fabriclab::runner::report {

// The event's kind ("step", "counters", ...); "" when it has none.
std::string event_kind(const nlohmann::json& event);

// The number under `key`; throws InputError "step event: field 'ts':
// expected a number" when it is missing or not a number.
double number_field(const nlohmann::json& event, const char* key);

// Whether any event is a step (a scenario without one measured nothing of
// its steps: its step-derived fields stay unset).
bool has_steps(const std::vector<nlohmann::json>& events);

// The largest `world_size` a start event declares; 0 when none does.
int declared_world_size(const std::vector<nlohmann::json>& events);

}  // namespace fabriclab::runner::report
