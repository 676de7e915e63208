// The `sweep` chart (chart_kind.h): a `[[sweep]]`'s points (runner/lab/
// sweep.h), x = the swept value, y = what it cost, in percent, on one axis:
//   the job      extra median step time against the sweep's baseline,
//                (step_slowdown - 1) x 100
//   one flow     goodput it lost on the same link, (1 - 1 / flow_slowdown) x 100
//   one flow     share of its bytes it sent twice, flow_retx_share x 100
// (runner/scenario/flow_probe.h), and a dashed line at 100%: step time
// doubled. Lab 07's curve. Points without a value (a stalled scenario, no
// probe) are left out of that line. Data inline; pure functions.
#pragma once

#include <string>
#include <vector>

#include "runner/report/chart_data.h"

namespace fabriclab::runner::report {

// The chart's data block: "value job_extra_pct flow_goodput_lost_pct
// flow_resent_pct" per point of the first sweep among `series`, in series
// order; "NaN" for a missing value (gnuplot skips it). Empty when no series
// is a sweep point.
std::string sweep_chart_rows(const std::vector<ScenarioSeries>& series);

std::string sweep_chart_script(const std::vector<ScenarioSeries>& series, const std::string& title,
                               const std::string& svg_name);

}  // namespace fabriclab::runner::report
