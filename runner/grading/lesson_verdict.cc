#include "runner/grading/lesson_verdict.h"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <cmath>

#include "runner/grading/property.h"
#include "runner/grading/value_source.h"
#include "runner/lab/answer_vocabulary.h"
#include "runner/rundir/run_format.h"

namespace fabriclab::runner::grading {

namespace {

std::string number_text(const std::optional<double>& n) {
  if (!n) return "no number";
  if (std::isinf(*n)) return "beyond the sweep (never reached)";
  // Three significant figures, without an exponent for large counts.
  return std::fabs(*n) >= 1000 ? fmt::format("{:.0f}", *n) : fmt::format("{:.3g}", *n);
}

// Why a run cannot judge `check`: a scenario it reads did not run.
std::string missing_scenario(const LessonCheck& check, const LabDefinition& lab,
                             const GradedRun& run) {
  for (const std::string& name : check_scenarios(check.check, lab.scenario_names()))
    if (!run.scenario(name)) return "scenario '" + name + "' did not run";
  return "";
}

// The scenarios a check reads, each with its status ("loss deadline");
// `unfinished_only`: only those that did not complete -- why a number is
// missing.
std::string statuses(const LessonCheck& check, const LabDefinition& lab, const GradedRun& run,
                     bool unfinished_only) {
  std::string out;
  for (const std::string& name : check_scenarios(check.check, lab.scenario_names())) {
    const RecordedScenario* s = run.scenario(name);
    const bool completed = s && s->status && *s->status == rundir::ScenarioStatus::kCompleted;
    if (unfinished_only && completed) continue;
    const std::string status = s && s->status ? rundir::to_string(*s->status) : "no status";
    out += (out.empty() ? "" : ", ") + name + " " + status;
  }
  return out;
}

// What the run measured for the check, in a few words.
std::string measured(const LessonCheck& check, const LabDefinition& lab, const GradedRun& run) {
  const Check c = parse_check(check.check);
  if (const auto numbers = compared_numbers(check.check, lab, run)) {
    std::string out =
        c.form == Check::Form::kComparePaths && c.scale != 1
            ? fmt::format("{} {} {:g} x {}", number_text(numbers->left), c.op, c.scale,
                          number_text(numbers->right ? std::optional<double>(*numbers->right / c.scale)
                                                     : std::nullopt))
            : fmt::format("{} {} {}", number_text(numbers->left), c.op, number_text(numbers->right));
    if (!numbers->left || !numbers->right) {
      const std::string why = statuses(check, lab, run, /*unfinished_only=*/true);
      out += " (" + (why.empty() ? std::string("not measured") : why) + ")";
    }
    return out;
  }
  if (c.form == Check::Form::kIs) {
    const Value v = evaluate_recording_path(c.path, lab, run);
    return v.type == Value::Type::kText ? "'" + v.text + "'" : "no word";
  }
  return statuses(check, lab, run, /*unfinished_only=*/false);
}

LessonVerdict judge(const LessonCheck& check, const LabDefinition& lab, const GradedRun& run,
                    bool quick) {
  LessonVerdict verdict{check, LessonOutcome::kNotJudged, ""};
  if (quick && !check.at_quick_scale) {
    verdict.detail = "needs a full run (not --quick)";
    return verdict;
  }
  verdict.detail = missing_scenario(check, lab, run);
  if (!verdict.detail.empty()) return verdict;
  try {
    verdict.outcome = check_holds(check.check, lab, run) ? LessonOutcome::kHeld : LessonOutcome::kFailed;
    verdict.detail = measured(check, lab, run);
  } catch (const DeriveError& e) {
    verdict.outcome = LessonOutcome::kFailed;
    verdict.detail = e.what();
  }
  return verdict;
}

}  // namespace

const char* outcome_word(LessonOutcome outcome) {
  switch (outcome) {
    case LessonOutcome::kHeld:
      return "held";
    case LessonOutcome::kFailed:
      return "failed";
    case LessonOutcome::kNotJudged:
      break;
  }
  return "not judged";
}

int LessonJudgement::count(LessonOutcome outcome) const {
  return static_cast<int>(std::count_if(verdicts.begin(), verdicts.end(),
                                        [&](const LessonVerdict& v) { return v.outcome == outcome; }));
}

LessonJudgement judge_lesson(const LabDefinition& lab, const GradedRun& run) {
  const bool quick = run.run.value("quick", false);
  LessonJudgement judgement;
  for (const LessonCheck& check : lab.lesson) judgement.verdicts.push_back(judge(check, lab, run, quick));
  return judgement;
}

nlohmann::json lesson_json(const LessonJudgement& judgement) {
  nlohmann::json checks = nlohmann::json::array();
  for (const LessonVerdict& v : judgement.verdicts) {
    checks.push_back({{"check", v.check.check},
                      {"claim", v.check.claim},
                      {"outcome", outcome_word(v.outcome)},
                      {"detail", v.detail},
                      {"line", v.check.line}});
  }
  return {{"held", judgement.held()}, {"checks", checks}};
}

std::string lesson_text(const LessonJudgement& judgement, const std::string& readme) {
  std::string out = "The lesson, checked on your run:\n";
  for (const LessonVerdict& v : judgement.verdicts) {
    const char* mark = v.outcome == LessonOutcome::kHeld     ? "held  "
                       : v.outcome == LessonOutcome::kFailed ? "FAILED"
                                                             : "--    ";
    out += fmt::format("  {}  {}\n          {}: {}\n", mark, v.check.claim, v.check.check, v.detail);
  }
  const int failed = judgement.count(LessonOutcome::kFailed);
  if (failed > 0) {
    out += fmt::format(
        "The lesson did not hold in your run: {} of {} checks failed. Your numbers do not show "
        "what the lab claims; read \"The lesson, checked on your run\" in {} before you answer.\n",
        failed, judgement.verdicts.size(), readme);
  } else if (judgement.count(LessonOutcome::kHeld) == 0) {
    out += "The lesson was not judged: this run left out what its checks read.\n";
  } else {
    out += "The lesson held in your run.\n";
  }
  return out;
}

}  // namespace fabriclab::runner::grading
