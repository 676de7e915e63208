// The table of charts (chart_kind.h). Add a chart here.
#include "runner/report/chart_kind.h"

#include "runner/report/alpha_beta_chart.h"
#include "runner/report/queue_chart.h"
#include "runner/report/sweep_chart.h"
#include "runner/report/timeline_chart.h"

namespace fabriclab::runner::report {

namespace {

const ChartKind kCharts[] = {
    {"loss_vs_time", "training loss (mean over ranks) against wall-clock time (s)",
     loss_chart_script},
    {"step_times", "step time (ms, slowest rank, log scale) per step", step_time_chart_script},
    {"timeline", "one median step per rank: compute, then waiting (ms)", timeline_chart_script},
    {"busbw", "allreduce busbw (GB/s) against message size, out-of-place", busbw_chart_script},
    {"link_bytes", "MB each rank's link carried (sent + received) per scenario",
     link_bytes_chart_script},
    {"sweep", "what each swept value cost (%): the job against one TCP flow on the same link",
     sweep_chart_script},
    {"queue_depth", "switch queue depth (KiB, deepest per second) over time", queue_depth_chart_script},
    {"alpha_beta_fit", "ms per allreduce against message size: measured (points), fitted model (lines)",
     alpha_beta_chart_script},
};

}  // namespace

const ChartKind* find_chart(const std::string& name) {
  for (const ChartKind& chart : kCharts) {
    if (name == chart.name) return &chart;
  }
  return nullptr;
}

std::vector<std::string> chart_names() {
  std::vector<std::string> names;
  for (const ChartKind& chart : kCharts) names.push_back(chart.name);
  return names;
}

const std::vector<std::string>& default_charts() {
  static const std::vector<std::string> names = {"loss_vs_time", "step_times"};
  return names;
}

}  // namespace fabriclab::runner::report
