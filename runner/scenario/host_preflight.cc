#include "runner/scenario/host_preflight.h"

#include <set>
#include <string>

#include "runner/link/link_setting.h"

namespace fabriclab::runner {

void refuse_what_this_host_cannot_run(const LabDefinition& lab,
                                      const std::vector<const ScenarioDefinition*>& scenarios) {
  std::set<std::string> refusals;  // the same sentence once, however many scenarios ask
  const auto ask = [&](const std::string& key, const SettingValue& value, const std::string& where) {
    const std::string why = find_link_setting(key)->host_refusal(value);
    if (!why.empty()) refusals.insert(where + ": " + why);
  };
  for (const auto& [key, value] : lab.fabric.link_settings) ask(key, value, "[topology] " + key);
  for (const ScenarioDefinition* s : scenarios)
    for (const auto& [key, value] : s->every_link_setting())
      ask(key, value, "scenario " + s->name + ": " + key);
  if (refusals.empty()) return;
  std::string message = "lab " + lab.id + " cannot run on this host as it is:";
  for (const std::string& line : refusals) message += "\n  " + line;
  throw HostRefusesLab(message);
}

}  // namespace fabriclab::runner
