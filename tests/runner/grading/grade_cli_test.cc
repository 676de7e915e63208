// `fabriclab grade` end to end with the real binary: exit codes (0 all pass,
// 1 any fail, 2 bad input), --json's shape, --init's template, the default
// recording (newest run under runs/), and clear errors.
#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "common/build_paths.h"
#include "tests/runner/grading/grading_fixture.h"
#include "tests/runner/test_support.h"
#include "tests/support/child_process.h"

namespace fabriclab::runner::grading {
namespace {

using fabriclab::testing::run_command;
using nlohmann::json;

class GradeCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    labs_ = testing::write_lab02(dir_.path() + "/labs");
    run_ = testing::lab02_run();
    recording_ = run_.write(dir_.path() + "/runs/02-20261122T053000Z-abc123");
  }

  fabriclab::testing::RunResult grade(std::vector<std::string> args) {
    std::vector<std::string> argv = {fabriclab::build_paths::fabriclab_binary(),
                                     "grade",
                                     "02",
                                     "--labs",
                                     labs_,
                                     "--runs",
                                     dir_.path() + "/runs"};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_command(argv);
  }

  runner::testing::TempDir dir_;
  std::string labs_, recording_;
  testing::FakeRun run_;
};

TEST_F(GradeCliTest, AllCorrectExitsZero) {
  testing::write_text(recording_ + "/answers.toml", testing::correct_answers_02());
  const auto r =
      grade({});  // default recording: the newest 02-* run; default answers: its answers.toml
  EXPECT_EQ(r.status.code, 0) << r.output;
  EXPECT_NE(r.output.find("Recording check: consistent"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("PASS  stall"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("Total: 13/13 points (100%), 7 of 7 exercises passed"), std::string::npos)
      << r.output;
}

TEST_F(GradeCliTest, AnyWrongExitsOneWithHint) {
  testing::write_text(dir_.path() + "/mine.toml", "grad-bytes = 12\nstall = \"none\"\n");
  const auto r = grade({"--answers", dir_.path() + "/mine.toml"});
  EXPECT_EQ(r.status.code, 1) << r.output;
  EXPECT_NE(r.output.find("FAIL  grad-bytes"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("hint: params x 4 bytes"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("FAIL  stall"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("PASS  clean-done"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("473128"), std::string::npos) << r.output;
}

TEST_F(GradeCliTest, JsonShape) {
  testing::write_text(recording_ + "/answers.toml", testing::correct_answers_02() + "");
  testing::write_text(dir_.path() + "/half.toml", "grad-bytes = 473128\n");
  const auto r =
      grade({"--json", "--recording", recording_, "--answers", dir_.path() + "/half.toml"});
  EXPECT_EQ(r.status.code, 1) << r.output;
  const json out = json::parse(r.output.substr(r.output.find('{')));
  EXPECT_EQ(out["format"], "fabriclab-grade");
  EXPECT_EQ(out["version"], 1);
  EXPECT_EQ(out["lab"], "02");
  EXPECT_EQ(out["recording"], recording_);
  EXPECT_EQ(out["answers"], dir_.path() + "/half.toml");
  EXPECT_EQ(out["passed"], false);
  EXPECT_EQ(out["score"], 3);  // grad-bytes 2 + clean-done 1
  EXPECT_EQ(out["max_score"], 13);
  EXPECT_EQ(out["consistent"], true);
  EXPECT_TRUE(out["problems"].is_array());
  ASSERT_EQ(out["exercises"].size(), 7u);
  const json& first = out["exercises"][0];
  EXPECT_EQ(first["id"], "grad-bytes");
  EXPECT_EQ(first["kind"], "number");
  EXPECT_EQ(first["status"], "pass");
  EXPECT_EQ(first["points"], 2);
  EXPECT_EQ(first["earned"], 2);
  EXPECT_TRUE(first["reason"].is_null());
  EXPECT_TRUE(first["hint"].is_null());
  const json& second = out["exercises"][1];
  EXPECT_EQ(second["status"], "fail");
  EXPECT_EQ(second["reason"], "not answered");
  EXPECT_EQ(second["hint"], "look for the eval event after step 5");
}

TEST_F(GradeCliTest, JsonReportsProblems) {
  run_.scenario("loss")["result"]["slowdown"] = 5.2;
  run_.write(recording_);
  testing::write_text(recording_ + "/answers.toml", testing::correct_answers_02());
  const auto r = grade({"--json"});
  EXPECT_EQ(r.status.code, 1) << r.output;
  const json out = json::parse(r.output.substr(r.output.find('{')));
  EXPECT_EQ(out["consistent"], false);
  ASSERT_EQ(out["problems"].size(), 1u);
  EXPECT_EQ(out["problems"][0]["scenario"], "loss");
  EXPECT_TRUE(out["problems"][0]["rank"].is_null());
}

TEST_F(GradeCliTest, InitWritesTemplateThatGradesAsUnanswered) {
  const auto init = grade({"--init"});
  EXPECT_EQ(init.status.code, 0) << init.output;
  const std::string text = testing::read_text(recording_ + "/answers.toml");
  EXPECT_NE(text.find("# Which scenario stalled, and why?"), std::string::npos) << text;
  // Grading the untouched template: exit 1, every answerable exercise "not answered".
  const auto r = grade({});
  EXPECT_EQ(r.status.code, 1) << r.output;
  EXPECT_NE(r.output.find("not answered"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("Total: 1/13 points"), std::string::npos) << r.output;
  // A second --init does not overwrite the student's file.
  const auto again = grade({"--init"});
  EXPECT_EQ(again.status.code, 2) << again.output;
  EXPECT_NE(again.output.find("already exists; not overwriting"), std::string::npos)
      << again.output;
}

// Before the first run (labs/SCHEMA.md, "Predictions"): --init writes the
// lab's own RUNS/NN-answers.toml, and once a run exists without an
// answers.toml beside it, grade reads that file.
TEST_F(GradeCliTest, InitBeforeTheFirstRunWritesTheLabsOwnAnswersFile) {
  const std::string runs = dir_.path() + "/empty-runs";
  const auto init = run_command({fabriclab::build_paths::fabriclab_binary(), "grade", "02",
                                 "--labs", labs_, "--runs", runs, "--init"});
  EXPECT_EQ(init.status.code, 0) << init.output;
  const std::string text = testing::read_text(runs + "/02-answers.toml");
  EXPECT_NE(text.find("# Recording: none yet"), std::string::npos) << text;
  EXPECT_NE(init.output.find("answer it after `fabriclab run 02`"), std::string::npos)
      << init.output;
  // With a recording (and no answers.toml beside it) grade falls back to it.
  testing::write_text(dir_.path() + "/runs/02-answers.toml", testing::correct_answers_02());
  const auto r = grade({});
  EXPECT_EQ(r.status.code, 0) << r.output;
  EXPECT_NE(r.output.find("Answers " + dir_.path() + "/runs/02-answers.toml"), std::string::npos)
      << r.output;
  // --init with a recording still writes beside it, and grade then reads
  // that; it says the file from before the run is now second.
  const auto after = grade({"--init"});
  EXPECT_EQ(after.status.code, 0) << after.output;
  EXPECT_NE(after.output.find("note: " + dir_.path() + "/runs/02-answers.toml (written before the "
                              "run) is still there"),
            std::string::npos)
      << after.output;
  EXPECT_TRUE(std::filesystem::exists(recording_ + "/answers.toml"));
  const auto beside = grade({});
  EXPECT_NE(beside.output.find("Answers " + recording_ + "/answers.toml"), std::string::npos)
      << beside.output;
}

TEST_F(GradeCliTest, BadInputExitsTwo) {
  struct Case {
    std::vector<std::string> args;
    std::string before;  // answers file text to write first ("" to write none)
    std::string expected;
  };
  const std::string answers = dir_.path() + "/a.toml";
  const std::vector<Case> cases = {
      {{"--recording", dir_.path() + "/nowhere"}, "", "nowhere: no such recording directory"},
      {{"--answers", dir_.path() + "/missing.toml"}, "", "missing.toml: no answers file"},
      {{"--answers", answers}, "grad-bytes = = 3\n", "a.toml:1:"},
      {{"--answers", answers}, "grad-bytes = 3\nspeed = 4\n", "a.toml:2: unknown exercise 'speed'"},
      {{"--answers", answers}, "stall = \"maybe\"\n", "a.toml:1: answer 'stall': expected one of"},
  };
  for (const Case& c : cases) {
    if (!c.before.empty()) testing::write_text(answers, c.before);
    const auto r = grade(c.args);
    EXPECT_EQ(r.status.code, 2) << r.output;
    EXPECT_NE(r.output.find(c.expected), std::string::npos) << r.output;
  }
  // No run of the lab at all.
  const auto none = run_command({fabriclab::build_paths::fabriclab_binary(), "grade", "02",
                                 "--labs", labs_, "--runs", dir_.path() + "/empty"});
  EXPECT_EQ(none.status.code, 2) << none.output;
  EXPECT_NE(none.output.find("no recording of lab 02"), std::string::npos) << none.output;
  // A recording of another lab.
  run_.run["lab"]["id"] = "01";
  run_.write(dir_.path() + "/other");
  const auto other = grade({"--recording", dir_.path() + "/other"});
  EXPECT_EQ(other.status.code, 2) << other.output;
  EXPECT_NE(other.output.find("a recording of lab 01, not of lab 02"), std::string::npos)
      << other.output;
  // A damaged manifest.
  testing::write_text(dir_.path() + "/other/run.json", "{\"format\": \"fabriclab-run\", \"vers");
  const auto damaged = grade({"--recording", dir_.path() + "/other"});
  EXPECT_EQ(damaged.status.code, 2) << damaged.output;
  EXPECT_NE(damaged.output.find("run.json:1: not valid JSON"), std::string::npos) << damaged.output;
}

}  // namespace
}  // namespace fabriclab::runner::grading
