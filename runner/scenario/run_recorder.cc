#include "runner/scenario/run_recorder.h"

#include <spdlog/fmt/fmt.h>
#include <sys/utsname.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <iostream>
#include <sstream>
#include <stdexcept>

#include "runner/grading/graded_run.h"
#include "runner/grading/lesson_verdict.h"
#include "runner/lab/draw.h"
#include "runner/link/sysctl_setting.h"
#include "runner/report/render_report.h"
#include "runner/report/run_directory.h"
#include "runner/report/scenario_summary.h"
#include "runner/scenario/rdma_summary.h"

namespace fabriclab::runner {
namespace {

constexpr int kCastWidth = 110;
constexpr int kCastHeight = 32;

std::string utc_stamp() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y%m%dT%H%M%SZ", &tm);
  return text;
}

double unix_now_s() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

RunRecorder::RunRecorder(const LabDefinition& lab, const std::string& output_dir,
                         const std::string& run_id, const std::string& suffix)
    : lab_(lab),
      writer_(output_dir + "/" + lab.id + "-" + utc_stamp() + "-" + run_id + suffix),
      console_(std::cout) {
  console_.attach_cast(writer_.session_cast_path(), kCastWidth, kCastHeight,
                       "fabriclab lab " + lab.name);
  console_.print(fmt::format("\n== Lab {}: {} ==\n", lab.id, lab.title));
  struct utsname u {};
  ::uname(&u);
  writer_.manifest().update(
      {{"lab", {{"id", lab.id}, {"name", lab.name}, {"title", lab.title}}},
       {"run_id", run_id},
       {"started_unix_s", unix_now_s()},
       {"mode", "namespaces"},
       {"versions", {{"fabriclab", FABRICLAB_VERSION}, {"libtorch", "1.13.1"}}},
       {"ranks", lab.ranks},
       {"workload", lab.workload.kind},
       {"trainer", lab.workload.params},
       {"fabric", lab.fabric.kind},
       {"segmentation_offload", lab.fabric.segmentation_offload},
       {"lab_sysctl", lab.fabric.link_setting(sysctl_setting().key())},
       {"charts", lab.charts},
       {"tables", lab.tables},
       {"kernel", u.release},
       {"host", u.nodename}});
}

RunRecorder::~RunRecorder() = default;

void RunRecorder::record_predictions(std::vector<grading::RecordedPrediction> taken,
                                     const std::string& answers_path) {
  std::string lines;
  for (const Exercise& ex : lab_.exercises) {
    if (ex.kind != Kind::kPrediction) continue;
    const grading::RecordedPrediction* found = nullptr;
    for (const auto& p : taken)
      if (p.id == ex.id) found = &p;
    lines += grading::prediction_line(ex, found, answers_path, lab_.id);
  }
  if (lines.empty()) return;  // the lab asks for no prediction
  records_predictions_ = true;
  predictions_ = std::move(taken);
  console_.print("\n" + lines);
  writer_.manifest()["predictions"] = grading::predictions_json(predictions_);
}

void RunRecorder::begin_scenario(const ScenarioDefinition& s) {
  console_.marker("scenario " + s.name + ": start");
  console_.print(fmt::format("\n-- scenario {}: {}{} --\n", s.name, s.condition,
                             s.impair().empty() ? "" : " (netem: " + s.impair() + ")"));
  if (!s.placement.empty()) {
    std::string hosts;
    for (size_t rank = 0; rank < s.placement.size(); ++rank)
      hosts += fmt::format(" {}:r{}", rank, s.placement[rank]);
    console_.print("   placement (rank:host):" + hosts + "\n");
  }
}

bool RunRecorder::end_scenario(const ScenarioDefinition& s, const ScenarioOutcome& outcome) {
  writer_.append_events(outcome.events);
  throw_if_cast_failed();
  if (records_predictions_ && outcome.status != rundir::ScenarioStatus::kSkipped &&
      outcome.started_unix_s > 0) {
    grading::mark_scenario_started(predictions_, s.name, outcome.started_unix_s);
    writer_.manifest()["predictions"] = grading::predictions_json(predictions_);
  }

  const std::string status = rundir::to_string(outcome.status);
  std::string verdict = status;
  std::transform(verdict.begin(), verdict.end(), verdict.begin(), ::toupper);
  console_.print(fmt::format("   {}: {} in {:.1f} s, {} of {} steps{}\n", s.name, verdict,
                             outcome.ended_unix_s - outcome.started_unix_s, outcome.steps_completed,
                             outcome.steps_planned,
                             outcome.message.empty() ? "" : " -- " + outcome.message));
  console_.marker("scenario " + s.name + ": " + status);
  std::vector<std::string> placement;
  for (int host : s.placement) placement.push_back("r" + std::to_string(host));
  writer_.add_scenario({s.name, s.condition, s.links, s.impair(), outcome.applied, outcome.status,
                        outcome.message, outcome.started_unix_s, outcome.ended_unix_s,
                        outcome.steps_planned, outcome.steps_completed, s.workload_overrides,
                        s.baseline, s.ranks, outcome.impairments, outcome.link_picks,
                        s.sweep.empty() ? nlohmann::json()
                                        : nlohmann::json{{"name", s.sweep}, {"value", s.sweep_value}},
                        placement});
  if (!outcome.capture.is_null()) {
    // Listed twice: beside its scenario, and in the run's list of files.
    nlohmann::json& manifest = writer_.manifest();
    manifest["scenarios"].back()["capture"] = outcome.capture;
    if (outcome.capture.contains("file")) manifest["captures"].push_back(outcome.capture["file"]);
  }
  record_rdma(s, outcome);
  return outcome.status != rundir::ScenarioStatus::kFailed &&
         outcome.status != rundir::ScenarioStatus::kInterrupted;
}

// A RoCE scenario's counters, summed over its hosts, with what it resent
// against its baseline's (rdma_summary.h); nothing for any other scenario.
void RunRecorder::record_rdma(const ScenarioDefinition& s, const ScenarioOutcome& outcome) {
  nlohmann::json& scenarios = writer_.manifest()["scenarios"];
  nlohmann::json baseline;
  for (const nlohmann::json& earlier : scenarios)
    if (!s.baseline.empty() && s.baseline != s.name && earlier.value("name", "") == s.baseline)
      baseline = earlier.value("rdma", nlohmann::json());
  nlohmann::json summary = rdma_summary(outcome.events, baseline);
  if (!summary.is_null()) scenarios.back()["rdma"] = std::move(summary);
}

void RunRecorder::throw_if_cast_failed() const {
  const std::string error = console_.cast_error();
  if (!error.empty()) throw std::runtime_error(error);
}

void RunRecorder::finish(bool charts_in_terminal) {
  throw_if_cast_failed();
  writer_.close_metrics();
  nlohmann::json& manifest = writer_.manifest();
  manifest["ended_unix_s"] = unix_now_s();
  writer_.write_manifest();  // first without results: a report failure keeps it

  // Results are computed from the metrics, the same way a replay does, and
  // stored in run.json so graders need not recompute them.
  const auto summaries = report::summarize_run(report::read_run_directory(dir()));
  for (auto& scenario : manifest["scenarios"]) {
    for (const auto& summary : summaries) {
      if (summary.name == scenario["name"]) scenario["result"] = nlohmann::json(summary.result);
    }
  }
  writer_.write_manifest();
  // Judged on the recording as written, as `grade` reads it; kept beside it.
  const std::string lesson = judge_the_lesson();
  if (!lesson.empty()) writer_.write_manifest();
  std::ostringstream report_text;
  report::ReportOptions report_options;
  report_options.charts_in_terminal = charts_in_terminal;
  report_options.conditions =
      recorded_conditions_text(manifest.value("conditions", nlohmann::json()));
  report::render_report(dir(), report_text, report_options);
  console_.print("\n" + report_text.str());
  if (!lesson.empty()) console_.print("\n" + lesson);
  console_.print(fmt::format("\nrun directory: {}\n", dir()));
  console_.close_cast();
}

std::string RunRecorder::judge_the_lesson() {
  if (lab_.lesson.empty()) return "";
  try {
    const grading::LessonJudgement judgement =
        grading::judge_lesson(lab_, grading::load_graded_run(dir()));
    writer_.manifest()["lesson"] = grading::lesson_json(judgement);
    return grading::lesson_text(judgement, lab_.dir + "/README.md");
  } catch (const std::exception& e) {
    // The recording is what the run produced; a lesson that cannot be
    // judged on it is said, not a reason to lose the run.
    return std::string("The lesson could not be judged: ") + e.what() + "\n";
  }
}

void RunRecorder::abandon(const std::string& why) noexcept {
  try {
    const size_t ended = writer_.manifest()["scenarios"].size();
    const bool written = writer_.mark_failed(why, unix_now_s());
    console_.print(fmt::format("\nrun stopped: {}\n{}\n", why,
                               written ? fmt::format("{}/run.json records the {} scenario(s) "
                                                     "that ended before it",
                                                     dir(), ended)
                                       : "run.json could not be written either"));
    console_.close_cast();
  } catch (...) {
    // Nothing more to say: the error itself is on its way to the user.
  }
}

void RunRecorder::finish_without_manifest() {
  writer_.close_metrics();
  console_.close_cast();
}

}  // namespace fabriclab::runner
