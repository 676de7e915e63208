#include "runner/report/slowdown_yardstick.h"

#include <algorithm>

namespace fabriclab::runner::report {

std::string baseline_of(const ScenarioSummary& summary) {
  return summary.baseline.value_or("clean");
}

bool SlowdownYardstick::several() const {
  return std::count_if(groups.begin(), groups.end(),
                       [](const auto& group) { return !group.first.empty(); }) > 1;
}

SlowdownYardstick slowdown_yardstick(const std::vector<ScenarioSummary>& summaries) {
  SlowdownYardstick out;
  for (const ScenarioSummary& summary : summaries) {
    const std::string baseline = baseline_of(summary);
    auto group = std::find_if(out.groups.begin(), out.groups.end(),
                              [&](const auto& g) { return g.first == baseline; });
    if (group == out.groups.end()) group = out.groups.insert(out.groups.end(), {baseline, {}});
    group->second.push_back(summary.name);
  }
  out.label = "clean";  // also when no scenario has a baseline: the lab's usual word
  for (const auto& group : out.groups)
    if (!group.first.empty()) out.label = group.first;
  if (out.several()) out.label = "base";
  return out;
}

std::string yardstick_legend(const SlowdownYardstick& yardstick, const std::string& indent) {
  if (!yardstick.several()) return "";
  std::string out;
  for (const auto& [baseline, names] : yardstick.groups) {
    std::string line = indent + (baseline.empty() ? "none (another workload):" : "against " + baseline + ":");
    for (size_t i = 0; i < names.size(); ++i) line += (i == 0 ? " " : ", ") + names[i];
    out += line + "\n";
  }
  return out;
}

}  // namespace fabriclab::runner::report
