// The slowest-of-N chart (lab 10): median step time (ms) against the job's
// ranks N, one line for the scenarios with a delay on every link (measured),
// the two predictions of each (the slowest of N links, the average link:
// result/slowest_of_n_part.cc) and one line for the scenarios without (the
// clean job on this machine's CPU). N is the number of ranks the scenario's
// per-rank times name. Pure, thread-safe.
#pragma once

#include <string>
#include <vector>

#include "runner/report/chart_data.h"

namespace fabriclab::runner::report {

std::string slowest_of_n_chart_script(const std::vector<ScenarioSeries>& series,
                                      const std::string& title, const std::string& svg_name);

}  // namespace fabriclab::runner::report
