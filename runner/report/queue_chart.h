// The `queue_depth` chart (chart_kind.h): the switch queue's depth over the
// scenario, one line per scenario (a queue's mode), KiB against seconds since
// the job's first step (negative: the neighbours alone, before it). Each
// point is the deepest the queue was in the second before its sample (the
// `counters` events' window_max_bytes): a taildrop queue sits at its limit,
// an ECN queue hovers around its marking threshold, a lossless one swings
// between XON and XOFF. Data inline; pure functions.
#pragma once

#include <string>
#include <vector>

#include "runner/report/chart_data.h"

namespace fabriclab::runner::report {

std::string queue_depth_chart_script(const std::vector<ScenarioSeries>& series,
                                     const std::string& title, const std::string& svg_name);

}  // namespace fabriclab::runner::report
