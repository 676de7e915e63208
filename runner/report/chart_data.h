// What the charts plot, and the gnuplot files that plot it: one data file
// per scenario and one script per chart, written to <run dir>/charts/ so a
// student can re-render or restyle them (`cd charts && gnuplot
// loss_vs_time.gp`). Pure functions (text in, text out), thread-safe;
// charts.h writes the files and runs gnuplot.
//
// Scripts refer to data files by relative name and are run with charts/ as
// the working directory, so no path of the run directory ever appears in
// gnuplot syntax. Every label is quoted with gnuplot_quote().
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runner/report/rank_times.h"
#include "runner/report/scenario_summary.h"

namespace fabriclab::runner::report {

// One step of one scenario, over its ranks.
struct StepPoint {
  int step = 0;
  double t_s = 0;              // end of the step (latest rank), seconds since
                               // the scenario's first step started
  double mean_loss = 0;        // mean over the ranks that reported the step
  double slowest_step_ms = 0;  // max step_ms over ranks (the BSP step time)
  // An allreduce sweep's step (the `allreduce` workload): its message size
  // and out-of-place busbw in GB/s, the time averaged over ranks
  // (doc/allreduce_bench.md); both 0 for other workloads.
  double size_bytes = 0;
  double busbw_gb_per_s = 0;
};

// What one lab link carried in a scenario: its last `counters` sample
// (recordings/FORMAT.md): tx = what its rank sent, rx = what it received.
struct LinkBytes {
  std::string name;  // "r0-sw", "r0-r1"
  double tx_bytes = 0;
  double rx_bytes = 0;
};

struct ScenarioSeries {
  std::string name;               // scenario name
  std::string label;              // legend text, "clean: no impairment"
  std::vector<StepPoint> points;  // by step number
  std::vector<RankTimes> ranks;   // each rank's median compute and wait (rank_times.h)
  std::vector<LinkBytes> links;   // by link name; empty without a counters sample
  // A `[[sweep]]` point (run.json `sweep`, runner/lab/sweep.h): its sweep
  // ("" = none) and value, for the `sweep` chart.
  std::string sweep;
  double sweep_value = 0;
  // The scenario's result row (scenario_summary.h), for charts that plot its
  // fields, read by name (result/result_parts.h: the `sweep` chart's).
  ScenarioResult result;
  // A queue's depth over time (the `counters` events' `queues`: the deepest
  // port's window_max_bytes, the deepest since the sample before), KiB, at
  // seconds since the first step started (negative: before the job began).
  std::vector<std::pair<double, double>> queue_depth_kb;
  // A link that went down while the job ran (`link_down`/`link_up` events,
  // runner/scenario/link_fault.h), or whose impairment changed
  // (`impair_change`/`impair_restore`): the steps every rank had completed
  // when it began, and how long it lasted (s; 0 if it never ended).
  struct LinkFaultMark {
    double after_step = 0;
    double down_s = 0;
    std::string what = "link down";  // or "impair 'loss 5%'"
  };
  std::vector<LinkFaultMark> link_faults;
};

// The series of one scenario's events (step events; start events for the
// world size; the last counters event for the links).
ScenarioSeries series_of(const std::string& name, const std::string& label,
                         const std::vector<nlohmann::json>& events);

// "<name>.dat", with any character outside [A-Za-z0-9_-] replaced by '_'.
std::string data_file_name(const std::string& scenario);
// Whitespace-separated columns: step t_s mean_loss slowest_step_ms
// size_bytes busbw_gb_per_s, under a '#' header line naming them.
std::string format_data_file(const ScenarioSeries& series);
// "<name>.links.dat" (name sanitized as above): the scenario's links, one
// per line: name tx_MB rx_MB (10^6 bytes).
std::string links_file_name(const std::string& scenario);
std::string format_links_file(const ScenarioSeries& series);

// A gnuplot single-quoted string literal: 'it''s' (gnuplot doubles quotes).
std::string gnuplot_quote(const std::string& text);

// What every chart script starts with: the header comment, SVG into
// `svg_name` or the text terminal (see below), the title and the axes' style.
std::string script_preamble(const std::string& svg_name, const std::string& title);

// The two charts. Each script draws SVG into `svg_name` by default, or text
// on stdout when gnuplot is started with -e "text_mode='mono'" (or 'ansi'),
// kTextColumns x kTextRows. Series without points are left out; `title`
// heads the chart.
constexpr int kTextColumns = 100;
constexpr int kTextRows = 25;
std::string loss_chart_script(const std::vector<ScenarioSeries>& series, const std::string& title,
                              const std::string& svg_name);
std::string step_time_chart_script(const std::vector<ScenarioSeries>& series,
                                   const std::string& title, const std::string& svg_name);
// An allreduce sweep's busbw against message size (log2 x), one line per
// scenario: nccl-tests' curve.
std::string busbw_chart_script(const std::vector<ScenarioSeries>& series,
                               const std::string& title, const std::string& svg_name);
// MB each rank's link carried, one bar per link and scenario (the links
// files above).
std::string link_bytes_chart_script(const std::vector<ScenarioSeries>& series,
                                    const std::string& title, const std::string& svg_name);

}  // namespace fabriclab::runner::report
