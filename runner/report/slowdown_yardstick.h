// What a run's slowdowns are measured against, in the words the tables use.
// Each scenario's slowdown is its wall time over its baseline's (run.json's
// `baseline`; absent = clean, as in older recordings; null = none). A column
// headed "x clean" is only true when every baseline is clean: lab 02's
// long-steps-linux is measured against long-steps, lab 07's sweeps against
// loss-0 and nosack-0, lab 09's placements against same-host. So the header
// names the one baseline when there is one ("x clean", "x same-host") and
// says "x base" when there are several, with a legend naming which
// scenarios go with which baseline.
// Pure functions.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "runner/report/scenario_summary.h"

namespace fabriclab::runner::report {

struct SlowdownYardstick {
  // "clean", "same-host", ...: the only baseline; "base" when there are several.
  std::string label;
  // Each baseline with the scenarios measured against it, in the run's order
  // of first appearance; "" = the scenarios with none.
  std::vector<std::pair<std::string, std::vector<std::string>>> groups;

  bool several() const;  // more than one baseline (the "" group does not count)
};

SlowdownYardstick slowdown_yardstick(const std::vector<ScenarioSummary>& summaries);

// The baseline a scenario's slowdown is measured against: "clean" when
// run.json does not say, "" for none.
std::string baseline_of(const ScenarioSummary& summary);

// "against clean: clean, latency, loss, both\nagainst long-steps: long-steps-linux\n"
// -- one line per baseline (and "none: ..." for the scenarios without one),
// each under `indent`; "" when there is only one baseline.
std::string yardstick_legend(const SlowdownYardstick& yardstick, const std::string& indent);

}  // namespace fabriclab::runner::report
