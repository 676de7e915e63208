// Is a recording internally consistent? Checked before grading, so a
// truncated or hand-edited recording is reported and the exercises that read
// the damaged part fail with the reason instead of being graded on it.
//
// What is checked (labs/SCHEMA.md, "Consistency"), per scenario and rank:
//   - every metrics line is JSON of a known version (doc/metrics.md v1);
//   - the lab's scenarios are all in run.json, with metrics unless skipped;
//   - times (ts) never go backwards; steps are numbered 1, 2, 3... ;
//   - step times add up to the wall time: with W the rank's final.wall_s (or,
//     without a final event, first step start to last step end),
//       sum(step_ms) <= 1.02 W + 50 ms   (steps cannot take longer than the run)
//       sum(step_ms) + sum(eval_ms) >= kMinCoverage W - 50 ms
//     and W agrees with the event times (within 5% + 250 ms);
//   - a "completed" scenario has every planned step and a final event on
//     every rank, and no error event; a "stalled"/"deadline"/"failed" one does
//     not have every rank finishing; the runner's scenario_end status, if
//     recorded, is run.json's status;
//   - run.json's result agrees with the metrics: wall_s within 5% + 250 ms of
//     the slowest rank's, slowdown = wall_s / baseline wall_s within 2%,
//     accuracy = the last evaluation's.
// Pure function of its inputs; no I/O.
#pragma once

#include <string>
#include <vector>

#include "runner/grading/graded_run.h"
#include "runner/lab/lab_definition.h"

namespace fabriclab::runner::grading {

// Steps and evaluations must cover at least this share of a rank's wall time;
// the rest is batch selection, metric writing and scheduling between steps.
constexpr double kMinCoverage = 0.7;

struct Problem {
  std::string scenario;  // empty: the whole recording
  int rank = -1;         // -1: not about one rank
  std::string message;   // complete sentence naming the place and the values
};

std::vector<Problem> check_consistency(const LabDefinition& lab, const GradedRun& rec);

}  // namespace fabriclab::runner::grading
