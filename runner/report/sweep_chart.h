// The `sweep` chart (chart_kind.h): each `[[sweep]]`'s points (runner/lab/
// sweep.h), x = the swept value, y = what it cost, in percent, on one axis:
//   the job      extra median step time against the sweep's baseline,
//                (step_slowdown - 1) x 100                      (solid)
//   one flow     goodput it lost on the same link, (1 - 1 / flow_slowdown) x 100  (dashed)
//   one flow     share of its bytes it sent twice, flow_retx_share x 100          (dotted)
// (runner/scenario/flow_probe.h), one colour per sweep, and a grey dashed
// line at 100%: step time doubled. The y axis is logarithmic from 1%: a
// no-SACK sweep's 1000% and a flow's 0.5% resent share on one chart; a
// cost below 1% (or a negative one, the run's noise) is not drawn. Lab 07's curves. Points without a value
// (a stalled scenario, no probe) are left out of that line. Data inline;
// pure functions.
#pragma once

#include <string>
#include <vector>

#include "runner/report/chart_data.h"

namespace fabriclab::runner::report {

// The sweeps among `series`, each once, in the order their first point comes.
std::vector<std::string> sweep_names(const std::vector<ScenarioSeries>& series);

// One sweep's data block: "value job_extra_pct flow_goodput_lost_pct
// flow_resent_pct" per point of `sweep`, in series order; "NaN" for a
// missing value (gnuplot skips it). Empty when no series is its point.
std::string sweep_chart_rows(const std::vector<ScenarioSeries>& series, const std::string& sweep);

std::string sweep_chart_script(const std::vector<ScenarioSeries>& series, const std::string& title,
                               const std::string& svg_name);

}  // namespace fabriclab::runner::report
