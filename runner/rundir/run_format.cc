#include "runner/rundir/run_format.h"

#include <stdexcept>
#include <utility>

namespace fabriclab::runner::rundir {
namespace {

// In the order FORMAT.md lists them.
constexpr std::pair<ScenarioStatus, const char*> kWords[] = {
    {ScenarioStatus::kCompleted, "completed"},     {ScenarioStatus::kStalled, "stalled"},
    {ScenarioStatus::kDeadline, "deadline"},       {ScenarioStatus::kFailed, "failed"},
    {ScenarioStatus::kInterrupted, "interrupted"}, {ScenarioStatus::kSkipped, "skipped"},
};

}  // namespace

std::string to_string(ScenarioStatus status) {
  for (const auto& [value, word] : kWords) {
    if (value == status) return word;
  }
  throw std::logic_error("ScenarioStatus " + std::to_string(static_cast<int>(status)));
}

std::optional<ScenarioStatus> scenario_status_from_string(std::string_view word) {
  for (const auto& [value, name] : kWords) {
    if (word == name) return value;
  }
  return std::nullopt;
}

std::string scenario_status_words() {
  std::string text;
  const size_t n = std::size(kWords);
  for (size_t i = 0; i < n; ++i) {
    text += (i == 0 ? "" : i + 1 == n ? " or " : ", ") + std::string(kWords[i].second);
  }
  return text;
}

void to_json(nlohmann::json& json, ScenarioStatus status) { json = to_string(status); }

void from_json(const nlohmann::json& json, ScenarioStatus& status) {
  const std::optional<ScenarioStatus> known =
      json.is_string() ? scenario_status_from_string(json.get<std::string>()) : std::nullopt;
  if (!known) {
    throw std::invalid_argument("unknown scenario status " + json.dump() + " (expected " +
                                scenario_status_words() + ")");
  }
  status = *known;
}

}  // namespace fabriclab::runner::rundir
