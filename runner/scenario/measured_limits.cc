#include "runner/scenario/measured_limits.h"

#include <spdlog/fmt/fmt.h>

namespace fabriclab::runner {

namespace {

// One limit's seconds and how the line says it.
std::string resolve_one(const char* what, const RelativeLimit& limit, const MeasuredTimes& measured,
                        double& seconds) {
  if (!limit.set()) return fmt::format("{} {:g} s", what, seconds);
  const auto base = measured.find(limit.scenario);
  if (base == measured.end())
    return fmt::format("{} {:g} s ({} did not complete in this run, so not {})", what, seconds,
                       limit.scenario, limit.text());
  seconds = limit.factor * base->second;
  return fmt::format("{} {} = {:.1f} s", what, limit.text(), seconds);
}

}  // namespace

ResolvedLimits resolve_limits(const ScenarioDefinition& scenario, const MeasuredTimes& measured) {
  ResolvedLimits resolved{scenario, ""};
  if (!scenario.deadline.set() && !scenario.stall.set()) return resolved;
  ScenarioDefinition& s = resolved.scenario;
  const std::string deadline = resolve_one("deadline", s.deadline, measured, s.deadline_s);
  const std::string stall = resolve_one("stall", s.stall, measured, s.stall_s);
  resolved.line = "limits: " + deadline + ", " + stall;
  return resolved;
}

}  // namespace fabriclab::runner
