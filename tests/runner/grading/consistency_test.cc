// The recording check: a consistent recording has no problems; each kind of
// damage (doctored, truncated, reordered, unknown version) is reported with
// where it is, and the exercises reading the damaged scenario fail with it
// while the others are still graded.
#include <gtest/gtest.h>

#include "runner/grading/answers.h"
#include "runner/grading/consistency.h"
#include "runner/grading/grader.h"
#include "tests/runner/grading/grading_fixture.h"
#include "tests/runner/test_support.h"

namespace fabriclab::runner::grading {
namespace {

using nlohmann::json;

class ConsistencyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    lab_ = load_lab(testing::write_lab02_with(dir_.path() + "/labs", ""));
    run_ = testing::lab02_run();
  }

  std::vector<Problem> problems() {
    return check_consistency(lab_, load_graded_run(run_.write(dir_.path() + "/run")));
  }

  // All problem messages, one per line, for assertions and failure output.
  std::string messages() {
    std::string out;
    for (const Problem& p : problems()) out += p.message + "\n";
    return out;
  }

  json* event(const std::string& scenario, int rank, const std::string& type, long step = -1) {
    for (json& e : run_.metrics) {
      if (e["scenario"] == scenario && e.value("rank", -1) == rank && e["event"] == type &&
          (step < 0 || e.value("step", -1L) == step)) {
        return &e;
      }
    }
    return nullptr;
  }

  runner::testing::TempDir dir_;
  LabDefinition lab_;
  testing::FakeRun run_;
};

TEST_F(ConsistencyTest, GeneratedRecordingIsConsistent) { EXPECT_EQ(messages(), ""); }

TEST_F(ConsistencyTest, TimeGoingBackwardsIsReported) {
  (*event("loss", 1, "step", 4))["ts"] = (*event("loss", 1, "step", 2))["ts"].get<double>() - 0.3;
  const std::string out = messages();
  EXPECT_NE(out.find("scenario 'loss', rank 1: time goes backwards at metrics.jsonl:"),
            std::string::npos)
      << out;
}

TEST_F(ConsistencyTest, StepTimesLongerThanTheWallAreReported) {
  (*event("latency", 0, "step", 3))["step_ms"] =
      2000.0;  // doctored: one step longer than the whole run
  const std::string out = messages();
  EXPECT_NE(out.find("scenario 'latency', rank 0: step times add up to"), std::string::npos) << out;
  EXPECT_NE(out.find("more than the wall time"), std::string::npos) << out;
}

TEST_F(ConsistencyTest, StepTimesCoveringTooLittleOfTheWallAreReported) {
  for (json& e : run_.metrics) {
    if (e["scenario"] == "clean" && e.value("rank", -1) == 0 && e["event"] == "step")
      e["step_ms"] = 30.0;
  }
  const std::string out = messages();
  EXPECT_NE(out.find("scenario 'clean', rank 0: step and eval times add up to"), std::string::npos)
      << out;
}

TEST_F(ConsistencyTest, TruncatedMetricsAreReported) {
  // Cut metrics.jsonl in the middle of the loss scenario, mid-line.
  run_.write(dir_.path() + "/run");
  const std::string path = dir_.path() + "/run/metrics.jsonl";
  std::string text = testing::read_text(path);
  const size_t cut = text.find("\"scenario\":\"loss\"");
  testing::write_text(path, text.substr(0, text.find("\n", cut + 2000) + 40));
  std::string out;
  for (const Problem& p : check_consistency(lab_, load_graded_run(dir_.path() + "/run")))
    out += p.message + "\n";
  EXPECT_NE(out.find("not valid JSON"), std::string::npos) << out;
  EXPECT_NE(out.find("scenario 'loss', rank 0: status completed, but the metrics have"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("scenario 'latency-loss': run.json lists it"), std::string::npos) << out;
}

TEST_F(ConsistencyTest, DoctoredResultsAreReported) {
  run_.scenario("loss")["result"]["slowdown"] = 1.1;
  run_.scenario("latency")["result"]["wall_s"] = 1.0;
  const std::string out = messages();
  EXPECT_NE(
      out.find("scenario 'loss': result.slowdown 1.1 is not wall_s / clean's wall_s (4.92157)"),
      std::string::npos)
      << out;
  EXPECT_NE(out.find("scenario 'latency': result.wall_s 1 s disagrees with the metrics"),
            std::string::npos)
      << out;
}

// Found by tests/fuzz/fuzz_recording: a step number of 8.9e121 was converted
// to long (undefined); a string where a number belongs threw nlohmann's
// type_error; a rank count of 10^18 would have been checked rank by rank.
TEST_F(ConsistencyTest, NumbersOfAnyShapeAreReportedNotCrashedOn) {
  (*event("loss", 1, "step", 4))["step"] = 8.88889e+121;
  for (json& e : run_.metrics)
    if (e["event"] == "eval" || e["event"] == "final") e["eval_ms"] = e["wall_s"] = "long";
  run_.scenario("clean")["ranks"] = 1000000000000000000;
  const std::string out = messages();
  EXPECT_NE(out.find("scenario 'loss', rank 1: step -1 follows step 3"), std::string::npos) << out;
  EXPECT_NE(out.find("scenario 'clean': run.json says 1000000000000000000 ranks; a lab has at most"),
            std::string::npos)
      << out;
}

TEST_F(ConsistencyTest, DoctoredStatusIsReported) {
  run_.scenario("loss")["status"] = "stalled";
  const std::string out = messages();
  EXPECT_NE(out.find("scenario 'loss': status stalled, but every rank finished all 10 steps"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("run.json says stalled but the runner recorded completed"), std::string::npos)
      << out;
}

TEST_F(ConsistencyTest, UnknownMetricsVersionAndMissingScenarioAreReported) {
  (*event("clean", 0, "step", 2))["v"] = 7;
  json& scenarios = run_.run["scenarios"];
  scenarios.erase(scenarios.begin() + 1);  // no latency
  const std::string out = messages();
  EXPECT_NE(out.find("metrics version 7 is not one fabriclab knows (expected 1 to 2)"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("scenario 'latency': the lab asks for it but the recording does not have it"),
            std::string::npos)
      << out;
}

TEST_F(ConsistencyTest, ExercisesReadingADamagedScenarioFailWithTheReason) {
  run_.scenario("loss")["result"]["slowdown"] = 5.2;  // doctored to match a guessed answer
  run_.write(dir_.path() + "/run");
  testing::write_text(dir_.path() + "/answers.toml", testing::correct_answers_02());
  const GradeReport report = grade(lab_, load_graded_run(dir_.path() + "/run"),
                                   load_answers(dir_.path() + "/answers.toml", lab_));
  ASSERT_EQ(report.problems.size(), 1u);
  for (const ExerciseGrade& g : report.grades) {
    // slowdown-loss and the ordering read the loss scenario; the rest do not.
    const bool reads_loss = g.id == "slowdown-loss" || g.id == "order";
    EXPECT_EQ(g.passed, !reads_loss) << g.id << ": " << g.reason;
    if (reads_loss) {
      EXPECT_EQ(
          g.reason.rfind("your recording is inconsistent: scenario 'loss': result.slowdown", 0), 0u)
          << g.reason;
      EXPECT_FALSE(g.hint.empty());
    }
  }
}

}  // namespace
}  // namespace fabriclab::runner::grading
