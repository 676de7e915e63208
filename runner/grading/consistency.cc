#include "runner/grading/consistency.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

namespace fabriclab::runner::grading {

using nlohmann::json;
using rundir::ScenarioStatus;

namespace {

// More ranks than any lab can have (runner/topology/fabric.h: 64), with room;
// not including topology here keeps grading free of it.
constexpr long kMaxRecordedRanks = 1024;

// The status's word; "" when run.json does not say.
std::string word(const std::optional<ScenarioStatus>& status) {
  return status ? rundir::to_string(*status) : std::string();
}

std::string num(double value) {
  std::ostringstream out;
  out.precision(6);
  out << value;
  return out.str();
}

std::string at(const json& event) {
  return std::string(rundir::kMetricsFile) + ":" + std::to_string(event.value("line", 0L));
}

// What one rank's events of one scenario add up to.
struct RankSummary {
  long steps = 0;
  bool final = false;
  bool error = false;
  double step_start_s = NAN;  // first step's start (its ts minus its step_ms)
  double last_step_end_s = NAN;
  double last_ts = NAN;
  double sum_step_s = 0;
  double sum_eval_s = 0;
  double final_wall_s = NAN;
  double last_accuracy = NAN;
};

class ScenarioChecker {
 public:
  ScenarioChecker(const LabDefinition& lab, const GradedRun& rec, const RecordedScenario& s,
                  std::vector<Problem>& out)
      : lab_(lab), rec_(rec), s_(s), out_(out) {}

  void run() {
    const auto found = rec_.events.find(s_.name);
    std::set<int> ranks;
    if (found != rec_.events.end()) {
      for (const auto& [rank, events] : found->second) {
        if (rank >= 0) ranks.insert(rank);
      }
    }
    const long scenario_ranks = s_.ranks > 0 ? s_.ranks : rec_.ranks;
    if (scenario_ranks > kMaxRecordedRanks) {
      // A damaged count: checking a billion ranks would never end.
      add(-1, "run.json says " + std::to_string(scenario_ranks) + " ranks; a lab has at most " +
                  std::to_string(kMaxRecordedRanks));
      return;
    }
    for (long r = 0; r < scenario_ranks; ++r) ranks.insert(static_cast<int>(r));
    if (s_.status == ScenarioStatus::kSkipped) return;
    if (found == rec_.events.end()) {
      add(-1, "run.json lists it (status " + word(s_.status) +
                  ") but metrics.jsonl has no event of it");
      return;
    }
    for (int rank : ranks) summaries_.push_back(check_rank(rank));
    check_status();
    check_result();
  }

 private:
  void add(int rank, const std::string& message) {
    std::string where = "scenario '" + s_.name + "'";
    if (rank >= 0) where += ", rank " + std::to_string(rank);
    out_.push_back({s_.name, rank, where + ": " + message});
  }

  RankSummary check_rank(int rank) {
    RankSummary sum;
    const std::vector<json>& events = rec_.rank_events(s_.name, rank);
    if (events.empty()) {
      // A rank that never started is what a failed or stalled scenario may
      // look like; a completed one must have every rank's events.
      if (s_.status == ScenarioStatus::kCompleted)
        add(rank, "no events in metrics.jsonl (truncated?)");
      return sum;
    }
    double previous_ts = -INFINITY;
    for (const json& e : events) {
      const double ts = e["ts"].get<double>();
      if (ts < previous_ts) {
        add(rank, "time goes backwards at " + at(e) + " (ts " + num(ts) + " after " +
                      num(previous_ts) + ")");
      }
      previous_ts = std::max(previous_ts, ts);
      sum.last_ts = ts;
      const std::string type = e.value("event", "");
      if (type == "step") {
        const long step = e.contains("step") ? rundir::json_count(e["step"], -1) : 0;
        const double step_ms = rundir::json_number(e, "step_ms", NAN);
        if (step != sum.steps + 1) {
          add(rank, "step " + std::to_string(step) + " follows step " + std::to_string(sum.steps) +
                        " at " + at(e));
        }
        if (!(step_ms >= 0))
          add(rank, "step " + std::to_string(step) + " has no valid step_ms at " + at(e));
        sum.steps = step;
        if (std::isnan(sum.step_start_s)) sum.step_start_s = ts - step_ms / 1000;
        sum.last_step_end_s = ts;
        sum.sum_step_s += std::max(0.0, step_ms) / 1000;
      } else if (type == "eval") {
        sum.sum_eval_s += std::max(0.0, rundir::json_number(e, "eval_ms", 0.0)) / 1000;
        const double accuracy = rundir::json_number(e, "accuracy", NAN);
        if (!(accuracy >= 0 && accuracy <= 1))
          add(rank, "accuracy " + num(accuracy) + " outside [0, 1] at " + at(e));
        sum.last_accuracy = accuracy;
      } else if (type == "final") {
        sum.final = true;
        sum.final_wall_s = rundir::json_number(e, "wall_s", NAN);
      } else if (type == "error") {
        sum.error = true;
      }
    }
    check_times(rank, sum);
    return sum;
  }

  void check_times(int rank, const RankSummary& sum) {
    if (sum.steps == 0) return;
    const double span_s = (sum.final ? sum.last_ts : sum.last_step_end_s) - sum.step_start_s;
    double wall_s = span_s;
    if (sum.final) {
      wall_s = sum.final_wall_s;
      if (!(std::fabs(span_s - wall_s) <= 0.05 * wall_s + 0.25)) {
        add(rank, "final wall_s " + num(wall_s) + " s disagrees with the event times (" +
                      num(span_s) + " s from the first step's start to the final event)");
      }
    }
    if (sum.sum_step_s > 1.02 * wall_s + 0.05) {
      add(rank, "step times add up to " + num(sum.sum_step_s) + " s, more than the wall time " +
                    num(wall_s) + " s");
    }
    const double covered_s = sum.sum_step_s + sum.sum_eval_s;
    if (covered_s < kMinCoverage * wall_s - 0.05) {
      add(rank, "step and eval times add up to " + num(covered_s) + " s, under " +
                    num(kMinCoverage * 100) + "% of the wall time " + num(wall_s) +
                    " s (steps missing?)");
    }
  }

  void check_status() {
    bool all_final = !summaries_.empty();
    bool any_error = false;
    for (size_t r = 0; r < summaries_.size(); ++r) {
      const RankSummary& sum = summaries_[r];
      all_final = all_final && sum.final && sum.steps >= s_.steps_planned;
      any_error = any_error || sum.error;
      if (s_.status == ScenarioStatus::kCompleted &&
          (sum.steps != s_.steps_planned || !sum.final)) {
        add(static_cast<int>(r), "status completed, but the metrics have " +
                                     std::to_string(sum.steps) + " of " +
                                     std::to_string(s_.steps_planned) + " steps" +
                                     (sum.final ? "" : " and no final event") + " (truncated?)");
      }
    }
    if (s_.status == ScenarioStatus::kCompleted && any_error)
      add(-1, "status completed, but a rank reported an error");
    if ((s_.status == ScenarioStatus::kStalled || s_.status == ScenarioStatus::kDeadline ||
         s_.status == ScenarioStatus::kFailed) &&
        all_final && !any_error) {
      add(-1, "status " + word(s_.status) + ", but every rank finished all " +
                  std::to_string(s_.steps_planned) + " steps");
    }
    for (const json& e : rec_.rank_events(s_.name, -1)) {
      // The reader has checked that a scenario_end's status is a known word.
      if (e.value("event", "") == "scenario_end" && e.contains("status") &&
          rundir::scenario_status_from_string(e["status"].get<std::string>()) != s_.status) {
        add(-1, "run.json says " + word(s_.status) + " but the runner recorded " +
                    e.value("status", "") + " at " + at(e));
      }
    }
  }

  static double result_number(const RecordedScenario& s, const char* key) {
    return rundir::json_number(s.result, key, NAN);
  }

  void check_result() {
    // The slowest rank's step span, and the widest the result may be: from
    // the earliest first-step start over all ranks to the latest end.
    double lo = 0, first_start = INFINITY, last_end = -INFINITY;
    for (const RankSummary& sum : summaries_) {
      if (sum.steps == 0) continue;
      lo = std::max(lo, sum.last_step_end_s - sum.step_start_s);
      first_start = std::min(first_start, sum.step_start_s);
      last_end = std::max(last_end, sum.final ? sum.last_ts : sum.last_step_end_s);
    }
    const double hi = lo > 0 ? last_end - first_start : 0;
    const double wall_s = result_number(s_, "wall_s");
    if (!std::isnan(wall_s) && hi > 0 && (wall_s < 0.95 * lo - 0.25 || wall_s > 1.05 * hi + 0.25)) {
      add(-1, "result.wall_s " + num(wall_s) +
                  " s disagrees with the metrics (the slowest rank ran " + num(lo) +
                  " s from first step to last)");
    }
    const double slowdown = result_number(s_, "slowdown");
    const RecordedScenario* base = baseline();
    if (!std::isnan(slowdown) && base) {
      const double base_wall_s = result_number(*base, "wall_s");
      if (!std::isnan(wall_s) && base_wall_s > 0 &&
          std::fabs(slowdown - wall_s / base_wall_s) > 0.02 * wall_s / base_wall_s) {
        add(-1, "result.slowdown " + num(slowdown) + " is not wall_s / " + base->name +
                    "'s wall_s (" + num(wall_s / base_wall_s) + ")");
      }
    }
    const double accuracy = result_number(s_, "accuracy");
    if (!std::isnan(accuracy) && !summaries_.empty() && !std::isnan(summaries_[0].last_accuracy) &&
        std::fabs(accuracy - summaries_[0].last_accuracy) > 1e-6) {
      add(-1, "result.accuracy " + num(accuracy) + " is not the last evaluation's (" +
                  num(summaries_[0].last_accuracy) + ")");
    }
  }

  const RecordedScenario* baseline() const {
    if (s_.baseline) return s_.baseline->empty() ? nullptr : rec_.scenario(*s_.baseline);
    if (const RecordedScenario* clean = rec_.scenario("clean")) return clean;
    return rec_.scenarios.empty() ? nullptr : &rec_.scenarios.front();
  }

  const LabDefinition& lab_;
  const GradedRun& rec_;
  const RecordedScenario& s_;
  std::vector<Problem>& out_;
  std::vector<RankSummary> summaries_;
};

}  // namespace

std::vector<Problem> check_consistency(const LabDefinition& lab, const GradedRun& rec) {
  std::vector<Problem> out;
  for (const MetricsProblem& p : rec.metrics_problems) out.push_back({p.scenario, -1, p.message});
  for (const std::string& name : lab.scenario_names()) {
    if (!rec.scenario(name)) {
      out.push_back(
          {name, -1,
           "scenario '" + name + "': the lab asks for it but the recording does not have it"});
    }
  }
  for (const RecordedScenario& s : rec.scenarios) ScenarioChecker(lab, rec, s, out).run();
  return out;
}

}  // namespace fabriclab::runner::grading
