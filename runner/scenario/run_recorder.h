// RunRecorder records one lab run as it goes: it writes the run's recording,
// its run directory (recordings/FORMAT.md): session.cast (what the student
// sees, through the Console), metrics.jsonl (every event of every scenario),
// run.json (the manifest), then the summary and charts.
//
//   RunRecorder recorder(lab, "runs", run_id);  // creates runs/<lab>-<time>-<id>/
//   recorder.manifest().update({...});          // mode, backend, seed, ...
//   for each scenario: recorder.begin_scenario(s); ...; recorder.end_scenario(s, outcome);
//   recorder.finish(charts);                    // run.json, results, report
//
// Both namespace mode (lab_run.cc) and host mode's lead
// (runner/host/host_run.cc) write their recordings through it, so the two
// are the same format and grade the same way. The files themselves are
// written by runner/rundir/run_writer.h, the format's one writer.
//
// Lifetime: owns the files and the Console; the LabDefinition must outlive
// it. Not thread-safe, except console() (Console is).
// Errors: std::runtime_error when the directory or a file cannot be written
// (rundir::RunWriteError naming the file and the reason, e.g. a full disk);
// the run then stops and abandon() records why.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "runner/cast/console.h"
#include "runner/grading/prediction_record.h"
#include "runner/lab/lab_definition.h"
#include "runner/rundir/run_writer.h"
#include "runner/scenario/scenario_runner.h"

namespace fabriclab::runner {

class RunRecorder {
 public:
  // Creates <output_dir>/<lab id>-<UTC time>-<run_id>[suffix]/, starts the
  // cast, prints the lab's title, and starts a manifest with the fields
  // every run has (format, lab, run id, time, versions, kernel, host,
  // ranks, trainer; "mode" = "namespaces" until told otherwise).
  RunRecorder(const LabDefinition& lab, const std::string& output_dir, const std::string& run_id,
              const std::string& suffix = "");
  ~RunRecorder();
  RunRecorder(const RunRecorder&) = delete;
  RunRecorder& operator=(const RunRecorder&) = delete;

  const std::string& dir() const { return writer_.dir(); }
  Console& console() { return console_; }
  // run.json as it will be written; add or change fields freely.
  nlohmann::json& manifest() { return writer_.manifest(); }

  // The student's predictions the run took from `answers_path` before it
  // started (prediction_record.h): one line per prediction exercise of the
  // lab, and run.json's "predictions". end_scenario() gives each the start
  // time of the scenario it predicts. Nothing for a lab without predictions.
  void record_predictions(std::vector<grading::RecordedPrediction> taken,
                          const std::string& answers_path);

  // The scenario's chapter marker and header line.
  void begin_scenario(const ScenarioDefinition& scenario);
  // Its events to metrics.jsonl, its verdict line, its marker, its entry in
  // run.json. Returns false when the outcome is failed or interrupted.
  bool end_scenario(const ScenarioDefinition& scenario, const ScenarioOutcome& outcome);

  // Writes run.json, computes the results from the metrics (as replay does)
  // into it, judges the lab's lesson on them (run.json's "lesson"), prints
  // the summary table, charts and the lesson's verdict and closes the cast.
  void finish(bool charts_in_terminal);
  // Closes metrics and cast without run.json or report (host mode's
  // followers: the lead writes the recording).
  void finish_without_manifest();
  // The run stops on an error (`why`: a full disk, ...): run.json gets the
  // scenarios that ended, "status": "failed" and "error": why; the cast
  // closes. Never throws: it runs while the error is on its way out.
  void abandon(const std::string& why) noexcept;

 private:
  // The lesson's checks on the results just written, into the manifest;
  // returns the lines to print ("" for a lab without a lesson).
  std::string judge_the_lesson();
  // run.json's `rdma` of a RoCE scenario (rdma_summary.h).
  void record_rdma(const ScenarioDefinition& s, const ScenarioOutcome& outcome);
  // The cast stopped early (a full disk): the run stops too.
  void throw_if_cast_failed() const;

  const LabDefinition& lab_;
  rundir::RunWriter writer_;
  std::vector<grading::RecordedPrediction> predictions_;
  bool records_predictions_ = false;
  Console console_;
};

}  // namespace fabriclab::runner
