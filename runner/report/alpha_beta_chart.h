// The `alpha_beta_fit` chart (chart_kind.h, lab 11): per allreduce scenario with
// a fit (alpha_beta_fit.h), its measured time per size as points and the
// fitted model alpha x steps + bytes / bandwidth as a line of the same
// colour, both axes logarithmic: the flat part of each line is the round
// trips, the rising part the bytes, the bend the crossover. Data inline;
// pure functions.
#pragma once

#include <string>
#include <vector>

#include "runner/report/chart_data.h"

namespace fabriclab::runner::report {

std::string alpha_beta_chart_script(const std::vector<ScenarioSeries>& series,
                                    const std::string& title, const std::string& svg_name);

}  // namespace fabriclab::runner::report
