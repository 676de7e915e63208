// The `timeline` chart (chart_kind.h): the curriculum's figure of a step,
// measured -- for every scenario, one bar per rank: its median compute
// (solid), then its median wait in the allreduce (light). A slow worker's
// bar is long and solid while the others' end in a long wait; a slow link
// lengthens every rank's wait alike. Data inline (a gnuplot data block), from
// ScenarioSeries::ranks. Pure function.
#pragma once

#include <string>
#include <vector>

#include "runner/report/chart_data.h"

namespace fabriclab::runner::report {

std::string timeline_chart_script(const std::vector<ScenarioSeries>& series,
                                  const std::string& title, const std::string& svg_name);

}  // namespace fabriclab::runner::report
