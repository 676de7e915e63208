#include "runner/grading/grader.h"

#include <algorithm>
#include <cmath>

#include "runner/grading/property.h"
#include "runner/grading/value_source.h"

namespace fabriclab::runner::grading {

namespace {

std::string source_words(const Exercise& ex) {
  switch (*ex.from) {
    case Source::kRecording:
      return "the value from your recording";
    case Source::kLab:
      return "the value the lab's parameters give";
    case Source::kSeed:
      return "the one your run's seed picked";
  }
  return "";
}

// The problems that make this exercise's expected answer untrustworthy.
std::vector<const Problem*> blocking(const Exercise& ex, const LabDefinition& lab,
                                     const std::vector<Problem>& problems) {
  std::vector<const Problem*> out;
  const Dependencies deps = dependencies(ex, lab);
  if (!deps.recording) return out;
  const bool seed_only = ex.kind != Kind::kProperty && *ex.from == Source::kSeed;
  for (const Problem& p : problems) {
    const bool reads =
        std::find(deps.scenarios.begin(), deps.scenarios.end(), p.scenario) != deps.scenarios.end();
    if ((p.scenario.empty() && !seed_only) || reads) out.push_back(&p);
  }
  return out;
}

// Partial credit for an ordering: the share of scenario pairs the answer
// puts in the right relative order.
double pairs_in_order(const std::vector<std::string>& expected,
                      const std::vector<std::string>& answer) {
  long total = 0, right = 0;
  for (size_t i = 0; i < expected.size(); ++i) {
    for (size_t j = i + 1; j < expected.size(); ++j) {
      ++total;
      auto a = std::find(answer.begin(), answer.end(), expected[i]);
      auto b = std::find(answer.begin(), answer.end(), expected[j]);
      if (a != answer.end() && b != answer.end() && a < b) ++right;
    }
  }
  return total == 0 ? 0 : static_cast<double>(right) / total;
}

void judge(const Exercise& ex, const LabDefinition& lab, const GradedRun& rec, const Answer& answer,
           ExerciseGrade& g) {
  if (ex.kind == Kind::kProperty) {
    g.passed = check_holds(ex.check, lab, rec);
    if (!g.passed) g.reason = "your run does not show: " + ex.check;
    return;
  }
  if (ex.kind == Kind::kPrediction) {
    PredictionVerdict verdict = judge_prediction(ex, lab, rec, answer);
    g.passed = verdict.passed;
    g.earned = verdict.earned;
    g.reason = verdict.reason;
    g.prediction = std::move(verdict.comparison);
    return;
  }
  if (!answer.given) {
    g.reason = "not answered";
    return;
  }
  const Value expected = derive(ex, lab, rec);
  switch (ex.kind) {
    case Kind::kNumber: {
      if (expected.type == Value::Type::kNull || answer.none) {
        g.passed = expected.type == Value::Type::kNull && answer.none;
        if (!g.passed)
          g.reason = expected.type == Value::Type::kNull
                         ? "your recording has no such value (e.g. its curve never reaches the "
                           "level, or the scenario did not complete): answer \"none\""
                         : "not " + source_words(ex);
        return;
      }
      const double allowed = std::max(
          {ex.tolerance.absolute, ex.tolerance.relative_percent / 100 * std::fabs(expected.number),
           1e-9 * std::max(1.0, std::fabs(expected.number))});
      g.passed = std::fabs(answer.number - expected.number) <= allowed;
      if (!g.passed) {
        g.reason = ex.tolerance.text() == "exact"
                       ? "not " + source_words(ex)
                       : "not within " + ex.tolerance.text() + " of " + source_words(ex);
      }
      return;
    }
    case Kind::kChoice:
    case Kind::kRank:
      g.passed = expected.type == Value::Type::kList
                     ? std::find(expected.list.begin(), expected.list.end(), answer.text) !=
                           expected.list.end()
                     : answer.text == expected.text;
      if (!g.passed) g.reason = "not " + source_words(ex);
      return;
    case Kind::kOrdering:
      g.passed = answer.list == expected.list;
      if (!g.passed) {
        g.reason =
            "not the order " +
            std::string(*ex.from == Source::kRecording ? "your recording shows" : "the lab gives");
        g.earned =
            static_cast<int>(std::floor(ex.points * pairs_in_order(expected.list, answer.list)));
      }
      return;
    case Kind::kProperty:
    case Kind::kPrediction:
      return;
  }
}

}  // namespace

bool GradeReport::all_passed() const {
  return std::all_of(grades.begin(), grades.end(), [](const ExerciseGrade& g) { return g.passed; });
}

GradeReport grade(const LabDefinition& lab, const GradedRun& rec, const Answers& answers) {
  GradeReport report;
  report.lab_id = lab.id;
  report.recording_dir = rec.dir;
  report.problems = check_consistency(lab, rec);
  for (const Exercise& ex : lab.exercises) {
    ExerciseGrade g;
    g.id = ex.id;
    g.kind = ex.kind;
    g.points = ex.points;
    const std::vector<const Problem*> blockers = blocking(ex, lab, report.problems);
    if (!blockers.empty()) {
      g.reason = "your recording is inconsistent: " + blockers.front()->message;
      if (blockers.size() > 1)
        g.reason += " (and " + std::to_string(blockers.size() - 1) + " more)";
    } else {
      auto answer = answers.find(ex.id);
      try {
        judge(ex, lab, rec, answer == answers.end() ? Answer{} : answer->second, g);
      } catch (const DeriveError& e) {
        g.passed = false;
        g.reason = e.what();
      }
    }
    if (g.passed) {
      g.earned = g.points;
      g.reason.clear();
    } else {
      g.hint = ex.hints.empty() ? "" : ex.hints.front();
    }
    report.score += g.earned;
    report.max_score += g.points;
    report.grades.push_back(std::move(g));
  }
  return report;
}

}  // namespace fabriclab::runner::grading
