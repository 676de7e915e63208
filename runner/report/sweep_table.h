// The `sweep` table (table_kind.h): per point of a `[[sweep]]`
// (runner/lab/sweep.h), in lab order, the job beside one TCP flow on the
// same impaired link (runner/scenario/flow_probe.h):
//   value  status  step ms  x base  job +%  flow Gb/s  goodput -%  resent %
// step ms: the job's median step time; x base = step_slowdown; job +% =
// (step_slowdown - 1) x 100; goodput -% = (1 - 1/flow_slowdown) x 100;
// resent % = flow_retx_share x 100 (scenario_summary.h). "--" where a value
// is missing. The inputs of lab 07's exercises, not their answers.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "runner/report/scenario_summary.h"

namespace fabriclab::runner::report {

// What a point cost, as shares (0.25 = 25%), for the table and the chart:
// the job's extra step time, step_slowdown - 1, and the goodput the flow
// lost, 1 - 1/flow_slowdown; nullopt when not measured.
std::optional<double> job_extra_share(const std::optional<double>& step_slowdown);
std::optional<double> flow_goodput_lost_share(const std::optional<double>& flow_slowdown);

// "" when no scenario is a sweep point.
std::string format_sweep_table(const std::vector<ScenarioSummary>& summaries);

}  // namespace fabriclab::runner::report
