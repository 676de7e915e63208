// The grader on hand-made recordings: each exercise kind PASS and FAIL (with
// its hint, never the answer), partial credit, null values, and that an
// exercise reading a damaged part of the recording fails with the reason.
#include <gtest/gtest.h>

#include "runner/grading/answers.h"
#include "runner/grading/grade_output.h"
#include "runner/grading/grader.h"
#include "runner/lab/seed_pick.h"
#include "runner/lab/lab_definition.h"
#include "tests/runner/grading/grading_fixture.h"
#include "tests/runner/test_support.h"

namespace fabriclab::runner::grading {
namespace {

using testing::correct_answers_02;
using testing::lab02_run;
using testing::write_text;

class GraderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    lab_ = load_lab(testing::write_lab02_with(dir_.path() + "/labs", ""));
    run_ = lab02_run();
  }

  GradeReport grade_with(const std::string& answers_text) {
    run_.write(dir_.path() + "/run");
    const std::string answers_path = dir_.path() + "/answers.toml";
    write_text(answers_path, answers_text);
    const GradedRun rec = load_graded_run(dir_.path() + "/run");
    return grade(lab_, rec, load_answers(answers_path, lab_));
  }

  static const ExerciseGrade& find(const GradeReport& report, const std::string& id) {
    for (const auto& g : report.grades) {
      if (g.id == id) return g;
    }
    throw std::runtime_error("no grade for " + id);
  }

  // The correct answers with one line replaced.
  static std::string answers_with(const std::string& id, const std::string& value) {
    std::istringstream in(correct_answers_02());
    std::string line, out;
    while (std::getline(in, line)) {
      out += (line.rfind(id + " = ", 0) == 0 ? id + " = " + value : line) + "\n";
    }
    return out;
  }

  runner::testing::TempDir dir_;
  LabDefinition lab_;
  testing::FakeRun run_;
};

TEST_F(GraderTest, CorrectAnswersPassEveryKind) {
  const GradeReport report = grade_with(correct_answers_02());
  EXPECT_TRUE(report.problems.empty()) << format_grade_text(report);
  for (const auto& g : report.grades) EXPECT_TRUE(g.passed) << g.id << ": " << g.reason;
  EXPECT_TRUE(report.all_passed());
  EXPECT_EQ(report.score, 13);
  EXPECT_EQ(report.max_score, 13);
}

struct WrongCase {
  const char* id;
  const char* value;
  const char* reason;     // a part of the expected reason
  const char* forbidden;  // the expected answer, which must not show
};

TEST_F(GraderTest, WrongAnswersFailWithHintNeverTheAnswer) {
  const uint64_t slow = seed_pick(1234567, "slow_rank", 2);
  const std::string wrong_rank = "\"r" + std::to_string(1 - slow) + "\"";
  const std::vector<WrongCase> cases = {
      {"grad-bytes", "473128000", "not the value the lab's parameters give", "473128"},
      {"accuracy-step-5", "0.52", "not within 0.005 of the value from your recording", "0.5 "},
      {"slowdown-loss", "6", "not within 10% of the value from your recording", "5"},
      {"stall", "\"latency-loss-bw\"", "not the value from your recording", "timeouts on a long"},
      {"slow-rank", wrong_rank.c_str(), "not the one your run's seed picked", "r"},
      {"order", "[\"latency\", \"clean\", \"loss\", \"latency-loss\"]",
       "not the order your recording shows", "clean"},
  };
  for (const WrongCase& c : cases) {
    SCOPED_TRACE(c.id);
    const GradeReport report = grade_with(answers_with(c.id, c.value));
    const ExerciseGrade& g = find(report, c.id);
    EXPECT_FALSE(g.passed);
    EXPECT_NE(g.reason.find(c.reason), std::string::npos) << g.reason;
    EXPECT_FALSE(g.hint.empty());
    // Neither the reason nor the hint states the expected answer.
    if (std::string(c.id) != "slow-rank") {
      EXPECT_EQ((g.reason + g.hint).find(c.forbidden), std::string::npos)
          << g.reason << " / " << g.hint;
    }
    EXPECT_FALSE(report.all_passed());
    // Every other exercise still passes: grades are independent.
    for (const auto& other : report.grades) {
      if (other.id != c.id) {
        EXPECT_TRUE(other.passed) << other.id << ": " << other.reason;
      }
    }
  }
}

TEST_F(GraderTest, TextAndJsonNeverContainTheExpectedValues) {
  const GradeReport report = grade_with(answers_with("grad-bytes", "1").replace(0, 0, ""));
  const std::string text = format_grade_text(report);
  const std::string json = grade_json(report).dump();
  for (const std::string& out : {text, json}) {
    EXPECT_EQ(out.find("473128"), std::string::npos) << out;
  }
  EXPECT_NE(text.find("FAIL  grad-bytes"), std::string::npos) << text;
  EXPECT_NE(text.find("hint: params x 4 bytes"), std::string::npos) << text;
  EXPECT_NE(text.find("Total: 11/13 points"), std::string::npos) << text;
}

TEST_F(GraderTest, PartialCreditForAnOrderingAndTotal) {
  // clean/latency swapped: 5 of 6 pairs in order -> floor(3 x 5/6) = 2 of 3.
  const GradeReport report =
      grade_with(answers_with("order", "[\"latency\", \"clean\", \"loss\", \"latency-loss\"]"));
  const ExerciseGrade& g = find(report, "order");
  EXPECT_FALSE(g.passed);
  EXPECT_EQ(g.earned, 2);
  EXPECT_EQ(report.score, 12);
  EXPECT_EQ(report.max_score, 13);
}

TEST_F(GraderTest, UnansweredFailsWithHint) {
  const GradeReport report = grade_with(answers_with("slowdown-loss", "\"\""));
  const ExerciseGrade& g = find(report, "slowdown-loss");
  EXPECT_FALSE(g.passed);
  EXPECT_EQ(g.reason, "not answered");
  EXPECT_EQ(g.hint, "divide the wall times");
  EXPECT_EQ(report.score, 11);
}

TEST_F(GraderTest, ChoiceFollowsTheRecordingsStatuses) {
  // The same answers graded against a run where nothing stalled.
  for (auto& s : run_.scenarios) {
    if (s.name == "latency-loss") {
      s.status = "completed";
      s.steps_done = 10;
    }
  }
  run_.build();
  EXPECT_FALSE(find(grade_with(correct_answers_02()), "stall").passed);
  EXPECT_TRUE(find(grade_with(answers_with("stall", "\"none\"")), "stall").passed);
}

// "CHECK and CHECK": an option is right only when every part holds on the
// run, so a "why" question's right explanation can need two numbers at once.
TEST_F(GraderTest, AnOptionJoinedByAndNeedsEveryPart) {
  lab_ = load_lab(testing::write_lab02_with(dir_.path() + "/labs", R"(
[[exercise]]
id = "why"
prompt = "p"
hints = ["h"]
kind = "choice"
from = "recording"
options = [
  { key = "both", text = "b", when = "scenario clean completed and scenario latency-loss stalled and scenario.loss.result.slowdown >= 2" },
  { key = "other", text = "o", when = "otherwise" },
]

[[exercise]]
id = "both-held"
prompt = "p"
hints = ["h"]
kind = "property"
check = "scenario clean completed and scenario latency-loss stalled"
)"));
  const std::string answers = correct_answers_02() + "why = \"both\"\n";
  EXPECT_TRUE(find(grade_with(answers), "why").passed);
  EXPECT_TRUE(find(grade_with(answers), "both-held").passed);
  for (auto& s : run_.scenarios) {
    if (s.name == "latency-loss") {
      s.status = "completed";
      s.steps_done = 10;
    }
  }
  run_.build();
  // One part fails: the conjunction does, and "otherwise" is right.
  const GradeReport report = grade_with(answers);
  EXPECT_FALSE(find(report, "why").passed);
  EXPECT_FALSE(find(report, "both-held").passed);
  EXPECT_TRUE(find(grade_with(correct_answers_02() + "why = \"other\"\n"), "why").passed);
}

TEST_F(GraderTest, PropertyFailsWhenTheRunDoesNotShowIt) {
  for (auto& s : run_.scenarios) {
    if (s.name == "clean") {
      s.status = "stalled";
      s.steps_done = 4;
    }
  }
  run_.build();
  const GradeReport report = grade_with(correct_answers_02());
  const ExerciseGrade& g = find(report, "clean-done");
  EXPECT_FALSE(g.passed);
  EXPECT_EQ(g.reason, "your run does not show: scenario clean completed");
}

TEST_F(GraderTest, NullValueIsAnsweredWithNone) {
  lab_ = load_lab(testing::write_lab02_with(dir_.path() + "/labs", R"(
[[exercise]]
id = "slowdown-ll"
prompt = "Slowdown of latency-loss?"
hints = ["a stalled scenario has no wall time"]
kind = "number"
tolerance = "10%"
from = "recording"
value = "scenario.latency-loss.result.slowdown"
)"));
  EXPECT_TRUE(
      find(grade_with(correct_answers_02() + "slowdown-ll = \"none\"\n"), "slowdown-ll").passed);
  EXPECT_FALSE(find(grade_with(correct_answers_02() + "slowdown-ll = 7\n"), "slowdown-ll").passed);
}

TEST_F(GraderTest, MissingEvalStepFailsWithReason) {
  lab_ = load_lab(testing::write_lab02_with(dir_.path() + "/labs", R"(
[[exercise]]
id = "acc-7"
prompt = "Accuracy after step 7?"
hints = ["h"]
kind = "number"
from = "recording"
value = "eval.accuracy@step=7"
)"));
  const GradeReport report = grade_with(correct_answers_02() + "acc-7 = 0.6\n");
  const ExerciseGrade& g = find(report, "acc-7");
  EXPECT_FALSE(g.passed);
  EXPECT_NE(g.reason.find("no evaluation after step 7 in scenario 'clean'"), std::string::npos)
      << g.reason;
}

TEST_F(GraderTest, SyncSecondsScaleTheRecordedBytesPerParameter) {
  lab_ = load_lab(testing::write_lab02_with(dir_.path() + "/labs", R"(
[[exercise]]
id = "inversion"
prompt = "175B over one 400G NIC at your bytes per parameter?"
hints = ["the scale-up table"]
kind = "number"
tolerance = "5%"
from = "recording"
value = "scenario.clean.sync_s@params=175e9,dtype=fp32,gbps=400,nics=1"
)"));
  run_.build();
  run_.scenario("clean")["result"]["wire_bytes_per_param"] = 6.4;  // 1.12 TB per rank
  EXPECT_TRUE(find(grade_with(correct_answers_02() + "inversion = 22.4\n"), "inversion").passed);
  EXPECT_FALSE(find(grade_with(correct_answers_02() + "inversion = 14\n"), "inversion").passed);

  run_.scenario("clean")["result"].erase("wire_bytes_per_param");
  const GradeReport report = grade_with(correct_answers_02() + "inversion = 22.4\n");
  const ExerciseGrade& g = find(report, "inversion");
  EXPECT_FALSE(g.passed);
  EXPECT_NE(g.reason.find("has no result.wire_bytes_per_param"), std::string::npos) << g.reason;
}

TEST_F(GraderTest, CostValuesPriceTheRecordedSlowdown) {
  lab_ = load_lab(testing::write_lab02_with(dir_.path() + "/labs", R"(
[[exercise]]
id = "idle"
prompt = "Idle seconds of each GPU-hour in the loss scenario?"
hints = ["the cost table"]
kind = "number"
tolerance = "2%"
from = "recording"
value = "scenario.loss.idle_s_per_gpu_hour"

[[exercise]]
id = "dollars"
prompt = "Its dollars per hour on 1,024 GPUs at $30?"
hints = ["the cost table"]
kind = "number"
tolerance = "2%"
from = "recording"
value = "scenario.loss.idle_usd_per_hour@gpus=1024,usd=30"

[[exercise]]
id = "stall-usd"
prompt = "Its worst stall on 1,024 GPUs at $30?"
hints = ["the cost table"]
kind = "number"
tolerance = "2%"
from = "recording"
value = "scenario.loss.stall_usd@gpus=1024,usd=30"
)"));
  run_.build();
  // The fixture's wall times (the consistency check holds them to the
  // metrics), 10 steps each, loss's longest step 3 s and clean's longest 1 s;
  // and the fields every recorded result has.
  nlohmann::json& clean = run_.scenario("clean")["result"];
  nlohmann::json& loss = run_.scenario("loss")["result"];
  for (nlohmann::json* result : {&clean, &loss})
    result->update({{"p99_step_ms", 1.0}, {"comm_share", 0.5}, {"steps_completed", 10}});
  clean["longest_step_ms"] = 1000.0;
  loss["longest_step_ms"] = 3000.0;
  const double clean_step_s = clean["wall_s"].get<double>() / 10;
  const double loss_step_s = loss["wall_s"].get<double>() / 10;
  ASSERT_GT(loss_step_s, clean_step_s);
  const double idle_s = (loss_step_s - clean_step_s) * (3600 / loss_step_s);
  const double dollars = idle_s / 3600 * 1024 * 30;
  const double stall = (3.0 - 1.0) * 1024 * 30 / 3600;  // $17.07
  const std::string right = "idle = " + std::to_string(idle_s) + "\ndollars = " +
                            std::to_string(dollars) + "\nstall-usd = " + std::to_string(stall) + "\n";
  const GradeReport report = grade_with(correct_answers_02() + right);
  for (const char* id : {"idle", "dollars", "stall-usd"})
    EXPECT_TRUE(find(report, id).passed) << id << ": " << find(report, id).reason;
  const std::string wrong = "idle = " + std::to_string(idle_s / 2) + "\ndollars = " +
                            std::to_string(dollars * 4) + "\nstall-usd = 85.33\n";
  const GradeReport wrong_report = grade_with(correct_answers_02() + wrong);
  for (const char* id : {"idle", "dollars", "stall-usd"}) EXPECT_FALSE(find(wrong_report, id).passed) << id;

  run_.scenario("loss")["result"]["slowdown"] = nullptr;  // it stalled
  const ExerciseGrade& g = find(grade_with(correct_answers_02() + right), "dollars");
  EXPECT_FALSE(g.passed);
  EXPECT_NE(g.reason.find("has no slowdown to price"), std::string::npos) << g.reason;
}

TEST(SeedPick, IsStableAndInRange) {
  // Fixed values: the runner and the grader must agree forever.
  EXPECT_EQ(seed_pick(0, "slow_rank", 1), 0u);
  std::set<uint64_t> seen;
  for (uint64_t seed = 0; seed < 200; ++seed) {
    const uint64_t r = seed_pick(seed, "slow_rank", 4);
    EXPECT_LT(r, 4u);
    seen.insert(r);
  }
  EXPECT_EQ(seen.size(), 4u);  // every rank gets picked for some seed
  EXPECT_EQ(seed_pick(1234567, "slow_rank", 4), seed_pick(1234567, "slow_rank", 4));
  EXPECT_NE(seed_pick(1, "a", 1000000), seed_pick(1, "b", 1000000));
}

}  // namespace
}  // namespace fabriclab::runner::grading
