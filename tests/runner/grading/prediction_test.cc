// Predictions (labs/SCHEMA.md, "Predictions"): the lab's prediction
// exercise as load_lab() reads it, what `fabriclab run` takes from the
// answers file and records in run.json, and how the grader judges the
// recorded value -- recorded before its scenario and within the tolerance,
// outside it, changed after the run, missing, recorded too late -- on the
// grader fixture's hand-made lab 02 recording (loss: 5x clean).
#include <gtest/gtest.h>

#include "common/input_error.h"
#include "runner/grading/answers.h"
#include "runner/grading/grade_output.h"
#include "runner/grading/grader.h"
#include "runner/grading/prediction_record.h"
#include "runner/lab/lab_definition.h"
#include "tests/runner/grading/grading_fixture.h"
#include "tests/runner/test_support.h"

namespace fabriclab::runner::grading {
namespace {

using nlohmann::json;
using testing::correct_answers_02;
using testing::write_text;

const char* kPrediction = R"(
[[exercise]]
id = "predict-loss"
prompt = "Before the run: how many times longer than clean will +10% loss take?"
points = 2
hints = ["think about retransmission timeouts"]
kind = "prediction"
unit = "x clean"
tolerance = "10%"
before = "loss"
value = "scenario.loss.result.slowdown"
explain = { over = "OVER: fewer timeouts than you thought.", under = "UNDER: each loss waits a timeout." }
)";

constexpr double kLossStart = 1795320000.0 + 2000;  // the fixture's third scenario

class PredictionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    lab_ = load_lab(testing::write_lab02_with(dir_.path() + "/labs", kPrediction));
    run_ = testing::lab02_run();
  }

  // The fixture's recording with `predictions` in run.json (none: no key).
  GradeReport grade_with(const std::optional<json>& predictions,
                         const std::string& extra_answer = "") {
    if (predictions) run_.run["predictions"] = *predictions;
    run_.write(dir_.path() + "/run");
    write_text(dir_.path() + "/answers.toml", correct_answers_02() + extra_answer);
    return grade(lab_, load_graded_run(dir_.path() + "/run"),
                 load_answers(dir_.path() + "/answers.toml", lab_));
  }

  static json recorded(double value, double recorded_at, std::optional<double> started) {
    RecordedPrediction p{"predict-loss", value, recorded_at, "loss", started};
    return predictions_json({p});
  }

  double loss_slowdown() { return run_.scenario("loss")["result"]["slowdown"].get<double>(); }

  static const ExerciseGrade& find(const GradeReport& report) {
    for (const auto& g : report.grades)
      if (g.id == "predict-loss") return g;
    throw std::runtime_error("no grade for predict-loss");
  }

  runner::testing::TempDir dir_;
  LabDefinition lab_;
  testing::FakeRun run_;
};

TEST_F(PredictionTest, TheLabReadsTheExercise) {
  const Exercise& ex = lab_.exercises.back();
  EXPECT_EQ(ex.kind, Kind::kPrediction);
  EXPECT_EQ(ex.before, "loss");
  EXPECT_EQ(*ex.from, Source::kRecording);
  EXPECT_EQ(ex.tolerance.relative_percent, 10);
  EXPECT_EQ(ex.explain_over, "OVER: fewer timeouts than you thought.");
  EXPECT_EQ(ex.explain_under, "UNDER: each loss waits a timeout.");
}

TEST_F(PredictionTest, RecordedBeforeAndWithinTheToleranceEarnsAllPoints) {
  const double measured = loss_slowdown();  // 4.92: the evaluations add to the wall time
  const GradeReport report = grade_with(recorded(5.3, kLossStart - 60, kLossStart));
  const ExerciseGrade& g = find(report);
  EXPECT_TRUE(g.passed) << g.reason;
  EXPECT_EQ(g.earned, 2);
  ASSERT_TRUE(g.prediction && g.prediction->measured && g.prediction->difference_percent);
  EXPECT_DOUBLE_EQ(*g.prediction->predicted, 5.3);
  EXPECT_DOUBLE_EQ(*g.prediction->measured, measured);
  EXPECT_NEAR(*g.prediction->difference_percent, (5.3 - measured) / measured * 100, 1e-9);
  EXPECT_TRUE(g.prediction->explain.empty());
  const std::string text = format_grade_text(report);
  EXPECT_NE(text.find("PASS  predict-loss"), std::string::npos) << text;
  EXPECT_NE(text.find("predicted 5.3 before scenario loss started, measured 4.92157 (+7.7%)"),
            std::string::npos)
      << text;
  EXPECT_TRUE(report.all_passed()) << text;
}

TEST_F(PredictionTest, OutsideTheToleranceEarnsHalfAndExplainsTheDirection) {
  const double measured = loss_slowdown();
  for (const auto& [value, says] : {std::pair{2.0, "UNDER"}, std::pair{9.0, "OVER"}}) {
    SCOPED_TRACE(value);
    const GradeReport report = grade_with(recorded(value, kLossStart - 60, kLossStart));
    const ExerciseGrade& g = find(report);
    EXPECT_FALSE(g.passed);
    EXPECT_EQ(g.earned, 1);
    EXPECT_NE(g.reason.find("not within 10% of what your run measured"), std::string::npos)
        << g.reason;
    ASSERT_TRUE(g.prediction && g.prediction->difference_percent);
    EXPECT_NEAR(*g.prediction->difference_percent, (value - measured) / measured * 100, 1e-9);
    EXPECT_EQ(g.prediction->explain.rfind(says, 0), 0u) << g.prediction->explain;
    const json out = grade_json(report);
    const json& entry = out["exercises"].back();
    EXPECT_EQ(entry["id"], "predict-loss");
    EXPECT_EQ(entry["earned"], 1);
    EXPECT_EQ(entry["prediction"]["predicted"], value);
    EXPECT_EQ(entry["prediction"]["measured"], measured);
    EXPECT_EQ(entry["prediction"]["explain"].get<std::string>().rfind(says, 0), 0u);
    EXPECT_TRUE(entry["prediction"]["changed_after_run_to"].is_null());
    EXPECT_NE(format_grade_text(report).find(std::string("why: ") + says), std::string::npos);
  }
}

TEST_F(PredictionTest, ChangedAfterTheRunIsGradedOnTheRecordedValueAndSaysSo) {
  // Recorded 9 (outside), the answers file now says 5 (within): still half.
  const GradeReport report =
      grade_with(recorded(9, kLossStart - 60, kLossStart), "predict-loss = 5\n");
  const ExerciseGrade& g = find(report);
  EXPECT_FALSE(g.passed);
  EXPECT_EQ(g.earned, 1);
  ASSERT_TRUE(g.prediction && g.prediction->changed_to);
  EXPECT_DOUBLE_EQ(*g.prediction->changed_to, 5);
  EXPECT_DOUBLE_EQ(*g.prediction->predicted, 9);
  const std::string text = format_grade_text(report);
  EXPECT_NE(text.find("note: your answers file says 5 now; graded on 9, the prediction recorded "
                      "before the run"),
            std::string::npos)
      << text;
  EXPECT_EQ(grade_json(report)["exercises"].back()["prediction"]["changed_after_run_to"], 5);
}

TEST_F(PredictionTest, TheSameValueInTheAnswersFileIsNoChange) {
  const GradeReport report =
      grade_with(recorded(5.2, kLossStart - 60, kLossStart), "predict-loss = \"5.2\"\n");
  const ExerciseGrade& g = find(report);
  EXPECT_TRUE(g.passed);
  ASSERT_TRUE(g.prediction);
  EXPECT_FALSE(g.prediction->changed_to);
}

TEST_F(PredictionTest, MissingFromTheRecordingEarnsNothingWithoutCrashing) {
  // A recording from before predictions (no key), one with none recorded, and
  // one where the student wrote it into the answers file only after the run.
  for (const auto& [predictions, answer] :
       {std::pair{std::optional<json>(), std::string()},
        std::pair{std::optional<json>(json::array()), std::string()},
        std::pair{std::optional<json>(json::array()), std::string("predict-loss = 5\n")}}) {
    SetUp();
    const GradeReport report = grade_with(predictions, answer);
    const ExerciseGrade& g = find(report);
    EXPECT_FALSE(g.passed);
    EXPECT_EQ(g.earned, 0);
    EXPECT_EQ(g.reason.rfind("not predicted before the run", 0), 0u) << g.reason;
    EXPECT_FALSE(g.hint.empty());
    ASSERT_TRUE(g.prediction);
    EXPECT_FALSE(g.prediction->predicted);
    EXPECT_TRUE(grade_json(report)["exercises"].back()["prediction"]["predicted"].is_null());
    EXPECT_EQ(report.score, 13);  // every other exercise still passes
  }
}

TEST_F(PredictionTest, RecordedAfterItsScenarioStartedOrWithoutOneEarnsNothing) {
  const GradeReport late_report = grade_with(recorded(5, kLossStart + 2, kLossStart));
  const ExerciseGrade& late = find(late_report);
  EXPECT_EQ(late.earned, 0);
  EXPECT_NE(late.reason.find("not recorded before scenario loss started (recorded 2.0 s after)"),
            std::string::npos)
      << late.reason;
  SetUp();
  const GradeReport never_report = grade_with(recorded(5, kLossStart - 60, std::nullopt));
  const ExerciseGrade& never = find(never_report);
  EXPECT_EQ(never.earned, 0);
  EXPECT_NE(never.reason.find("it did not start in this run"), std::string::npos) << never.reason;
}

TEST_F(PredictionTest, NothingMeasuredStillEarnsHalfForPredicting) {
  // The stalled scenario has no slowdown.
  const std::string lab = dir_.path() + "/labs2";
  std::string exercise = kPrediction;
  exercise.replace(exercise.find("scenario.loss.result"), 13, "scenario.latency-loss");
  lab_ = load_lab(testing::write_lab02_with(lab, exercise));
  const GradeReport report = grade_with(recorded(5, kLossStart - 60, kLossStart));
  const ExerciseGrade& g = find(report);
  EXPECT_EQ(g.earned, 1);
  EXPECT_NE(g.reason.find("measured no such value"), std::string::npos) << g.reason;
}

TEST(PredictionRecord, TakesTheAnsweredPredictionsAndMarksTheirScenario) {
  runner::testing::TempDir dir;
  const LabDefinition lab = load_lab(testing::write_lab02_with(dir.path() + "/labs", kPrediction));
  Answers answers;
  answers["predict-loss"].given = true;
  answers["predict-loss"].number = 4.5;
  answers["slowdown-loss"].given = true;  // a number exercise: not a prediction
  std::vector<RecordedPrediction> taken = take_predictions(lab, answers, 100.0);
  ASSERT_EQ(taken.size(), 1u);
  EXPECT_EQ(taken[0].id, "predict-loss");
  EXPECT_EQ(taken[0].before, "loss");
  EXPECT_FALSE(taken[0].before_scenario_started_unix_s);
  mark_scenario_started(taken, "clean", 101.0);
  EXPECT_FALSE(taken[0].before_scenario_started_unix_s);
  mark_scenario_started(taken, "loss", 102.0);
  mark_scenario_started(taken, "loss", 999.0);  // the first start counts
  EXPECT_EQ(*taken[0].before_scenario_started_unix_s, 102.0);

  const json run = {{"predictions", predictions_json(taken)}};
  const auto back = read_predictions("run.json", run.dump(2), run);
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].value, 4.5);
  EXPECT_EQ(back[0].recorded_unix_s, 100.0);
  EXPECT_EQ(*back[0].before_scenario_started_unix_s, 102.0);

  answers["predict-loss"].given = false;  // missing: not an error, nothing taken
  EXPECT_TRUE(take_predictions(lab, answers, 100.0).empty());
  const Exercise& ex = lab.exercises.back();
  EXPECT_NE(prediction_line(ex, nullptr, dir.path() + "/nowhere.toml", "02")
                .find("none, no " + dir.path() + "/nowhere.toml (`fabriclab grade 02 --init`"),
            std::string::npos);
  write_text(dir.path() + "/a.toml", "");
  EXPECT_NE(prediction_line(ex, nullptr, dir.path() + "/a.toml", "02")
                .find("none in " + dir.path() + "/a.toml -- not recorded"),
            std::string::npos);
  EXPECT_NE(prediction_line(ex, &taken[0], "a.toml", "02").find("4.5 x clean recorded at"),
            std::string::npos);
}

TEST(PredictionRecord, AMalformedEntryNamesItsLine) {
  const json run = {{"predictions", {{{"id", "p"}, {"value", "high"}, {"recorded_unix_s", 1},
                                      {"before", "loss"}, {"before_scenario_started_unix_s", 2}}}}};
  const std::string text = run.dump(2);
  try {
    read_predictions("rec/run.json", text, run);
    FAIL() << "accepted a prediction whose value is a string";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("rec/run.json:"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("predictions[0].value': expected a number, got \"high\""),
              std::string::npos)
        << e.what();
  }
}

TEST(PredictionAnswers, APredictionIsANumberAndTheTemplateSaysBeforeTheRun) {
  runner::testing::TempDir dir;
  const LabDefinition lab = load_lab(testing::write_lab02_with(dir.path() + "/labs", kPrediction));
  write_text(dir.path() + "/a.toml", "predict-loss = \"about five\"\n");
  try {
    load_answers(dir.path() + "/a.toml", lab);
    FAIL() << "accepted a prediction that is not a number";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("a.toml:1: answer 'predict-loss': expected a number (in "
                                         "x clean), your prediction"),
              std::string::npos)
        << e.what();
  }
  const std::string text = answers_template(lab, "");
  EXPECT_NE(text.find("Recording: none yet"), std::string::npos) << text;
  EXPECT_NE(text.find("Write it BEFORE `fabriclab run 02`"), std::string::npos) << text;
  EXPECT_NE(text.find("predict-loss = \"\""), std::string::npos) << text;
}

struct BadExercise {
  const char* change_from;
  const char* change_to;
  const char* message;
};

TEST(PredictionExercise, ALabWithABadOneIsRefusedAtItsLine) {
  const BadExercise cases[] = {
      {"before = \"loss\"\n", "", "missing key 'before'"},
      {"before = \"loss\"", "before = \"lost\"",
       "before 'lost': expected one of the lab's scenarios (clean, latency, loss, latency-loss)"},
      {"tolerance = \"10%\"\n", "", "missing key 'tolerance'"},
      {"kind = \"prediction\"", "kind = \"prediction\"\nfrom = \"lab\"", "drop 'from'"},
      {"explain = {", "explain = 3\n#", "explain: expected a string, or { over"},
      {"explain = {", "explain = { sideways = \"x\" }\n#", "explain: expected { over"},
      {"value = \"scenario.loss.result.slowdown\"", "value = \"scenario.loss.status\"",
       "is not a number"},
      {"kind = \"prediction\"", "kind = \"number\"\nfrom = \"recording\"",
       "'before' applies to kind prediction only"},
  };
  for (const BadExercise& c : cases) {
    SCOPED_TRACE(c.message);
    runner::testing::TempDir dir;
    std::string exercise = kPrediction;
    exercise.replace(exercise.find(c.change_from), std::string(c.change_from).size(), c.change_to);
    const std::string path = testing::write_lab02_with(dir.path() + "/labs", exercise);
    try {
      load_lab(path);
      FAIL() << "accepted:\n" << exercise;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("lab.toml:"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("exercise 'predict-loss'"), std::string::npos)
          << e.what();
      EXPECT_NE(std::string(e.what()).find(c.message), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace fabriclab::runner::grading
