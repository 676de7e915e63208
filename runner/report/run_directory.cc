#include "runner/report/run_directory.h"

#include "common/input_error.h"
#include "runner/report/result/recorded_results.h"

namespace fabriclab::runner::report {

RunDirectory read_run_directory(const std::filesystem::path& dir) {
  RunDirectory run = rundir::read_run(dir);
  check_recorded_results(run);
  if (!run.problems.empty()) {
    const rundir::MetricsProblem& first = run.problems.front();
    throw input_error_at((run.path / rundir::kMetricsFile).string(), first.line, first.message);
  }
  return run;
}

std::vector<nlohmann::json> parse_metrics_lines(const std::string& text, const std::string& path) {
  rundir::MetricsLines lines = rundir::parse_metrics(text);
  if (!lines.problems.empty()) {
    const rundir::MetricsProblem& first = lines.problems.front();
    throw input_error_at(path, first.line, first.message);
  }
  std::vector<nlohmann::json> events;
  for (rundir::MetricsEvent& e : lines.events) events.push_back(std::move(e.event));
  return events;
}

}  // namespace fabriclab::runner::report
