// The lesson as checks (labs/SCHEMA.md, "The lesson"): the grammar's
// comparisons between two measurements, the [[lesson]] tables' errors, and
// the verdicts on real recordings -- every reference recording (a full run)
// shows its lab's whole lesson, and a recording whose story is inverted (two
// scenarios' measurements swapped) fails the check that rests on them, by
// name.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>

#include "common/build_paths.h"
#include "common/input_error.h"
#include "runner/grading/graded_run.h"
#include "runner/grading/lesson_verdict.h"
#include "runner/lab/answer_vocabulary.h"
#include "runner/lab/lab_definition.h"
#include "tests/runner/lab/lab_file_test.h"
#include "tests/runner/test_support.h"

namespace fabriclab::runner::grading {
namespace {

namespace fs = std::filesystem;

TEST(LessonGrammar, ComparesTwoMeasurementsWithAScale) {
  const Check c = parse_check("scenario.loss.result.slowdown >= 1.5 x scenario.latency.result.slowdown");
  EXPECT_EQ(c.form, Check::Form::kComparePaths);
  EXPECT_EQ(c.path, "scenario.loss.result.slowdown");
  EXPECT_EQ(c.op, ">=");
  EXPECT_DOUBLE_EQ(c.scale, 1.5);
  EXPECT_EQ(c.other_path, "scenario.latency.result.slowdown");
  const Check plain = parse_check("scenario.a.result.median_step_ms < scenario.b.result.median_step_ms");
  EXPECT_DOUBLE_EQ(plain.scale, 1);
  EXPECT_EQ(parse_check("scenario.a.result.straggler == seed.slow_rank").other_path, "seed.slow_rank");
  // A number on the right is still the older form.
  EXPECT_EQ(parse_check("scenario.a.result.slowdown > 1.5").form, Check::Form::kCompare);
}

TEST(LessonGrammar, RefusesWhatCannotBeCompared) {
  const ScenarioNames names = {"clean", "loss"};
  EXPECT_NO_THROW(validate_check("scenario.loss.result.slowdown >= 2 x scenario.clean.result.slowdown", names));
  EXPECT_THROW(validate_check("scenario.loss.result.slowdown >= 0 x scenario.clean.result.slowdown", names),
               std::invalid_argument);
  EXPECT_THROW(validate_check("scenario.loss.result.slowdown >= scenario.gone.result.slowdown", names),
               std::invalid_argument);
  EXPECT_THROW(validate_check("scenario.loss.result.slowdown >= scenarios.ordered_by.result.wall_s", names),
               std::invalid_argument);
}

const char* kHead = "[lab]\nid = \"94\"\ntitle = \"t\"\n[[scenario]]\nname = \"clean\"\n";

class LessonTable : public LabFileTest {
 protected:
  LessonTable() : LabFileTest("94-lesson", kHead) {}
};

TEST_F(LessonTable, ReadsChecksClaimsAndQuickScale) {
  const LabDefinition lab = load_lab(write(
      "[[lesson]]\ncheck = \"scenario.clean.result.accuracy > 0.5\"\nclaim = \"it learns\"\n"
      "[[lesson]]\ncheck = \"scenario clean completed\"\nclaim = \"it ends\"\nquick = false\n"));
  ASSERT_EQ(lab.lesson.size(), 2u);
  EXPECT_EQ(lab.lesson[0].claim, "it learns");
  EXPECT_TRUE(lab.lesson[0].at_quick_scale);
  EXPECT_FALSE(lab.lesson[1].at_quick_scale);
  EXPECT_EQ(lab.lesson[1].line, 9);
}

TEST_F(LessonTable, NamesTheLineAndWhatWasExpected) {
  EXPECT_NE(error("[[lesson]]\ncheck = \"scenario.clean.result.accuracy > 0.5\"\n").find(
                "94-lesson/lab.toml:6: lesson: missing key 'claim' (expected a string)"),
            std::string::npos);
  EXPECT_NE(error("[[lesson]]\ncheck = \"scenario.other.result.wall_s > 1\"\nclaim = \"c\"\n")
                .find("lab.toml:7: lesson: "),
            std::string::npos);
  EXPECT_NE(error("[[lesson]]\ncheck = \"otherwise\"\nclaim = \"c\"\n").find("expected a property"),
            std::string::npos);
  EXPECT_NE(error("[[lesson]]\ncheck = \"scenario clean completed\"\nclaim = \"c\"\nquick = 1\n")
                .find("lab.toml:9: lesson: key 'quick': expected true or false"),
            std::string::npos);
  EXPECT_NE(error("[[lesson]]\ncheck = \"scenario clean completed\"\nclaim = \"c\"\nwhy = \"\"\n")
                .find("unknown key 'why' (expected check, claim, quick)"),
            std::string::npos);
}

std::vector<fs::path> reference_recordings() {
  std::vector<fs::path> out;
  for (const auto& entry :
       fs::directory_iterator(fs::path(fabriclab::build_paths::source_dir()) / "recordings"))
    if (fs::exists(entry.path() / "run.json")) out.push_back(entry.path());
  std::sort(out.begin(), out.end());
  return out;
}

LabDefinition lab_of(const fs::path& recording) {
  const std::string labs = std::string(fabriclab::build_paths::source_dir()) + "/labs";
  return load_lab(find_lab_file(labs, recording.filename().string()));
}

// Each reference recording is a full run made on this project's machine:
// every check of its lab is judged, and holds.
TEST(LessonVerdict, EveryReferenceRecordingShowsItsLabsWholeLesson) {
  const auto recordings = reference_recordings();
  // One per lab: every lab has its reference.
  size_t labs = 0;
  for (const auto& entry :
       fs::directory_iterator(fs::path(fabriclab::build_paths::source_dir()) / "labs"))
    labs += entry.is_directory() && entry.path().filename().string().size() > 3 &&
            entry.path().filename().string()[2] == '-';
  ASSERT_EQ(recordings.size(), labs);
  for (const fs::path& dir : recordings) {
    SCOPED_TRACE(dir.filename().string());
    const LabDefinition lab = lab_of(dir);
    const LessonJudgement j = judge_lesson(lab, load_graded_run(dir.string()));
    ASSERT_FALSE(j.verdicts.empty());
    for (const LessonVerdict& v : j.verdicts)
      EXPECT_EQ(v.outcome, LessonOutcome::kHeld) << v.check.check << ": " << v.detail;
    EXPECT_TRUE(j.held());
  }
}

// Lab 02 with its latency and loss measurements swapped: the story "a lost
// packet costs more than a long path" is inverted, and the check that
// states it fails, saying what the run measured.
TEST(LessonVerdict, AnInvertedStoryFailsTheCheckThatStatesIt) {
  const fs::path source = fs::path(fabriclab::build_paths::source_dir()) / "recordings/02-dropped-packet";
  runner::testing::TempDir tmp;
  const fs::path dir = fs::path(tmp.path()) / "02-dropped-packet";
  fs::copy(source, dir, fs::copy_options::recursive);
  nlohmann::json run = nlohmann::json::parse(std::ifstream(dir / "run.json"));
  nlohmann::json* latency = nullptr;
  nlohmann::json* loss = nullptr;
  for (auto& s : run["scenarios"]) {
    if (s["name"] == "latency") latency = &s["result"];
    if (s["name"] == "loss") loss = &s["result"];
  }
  ASSERT_TRUE(latency && loss);
  std::swap(*latency, *loss);
  std::ofstream(dir / "run.json") << run.dump(2);

  const LessonJudgement j = judge_lesson(lab_of(source), load_graded_run(dir.string()));
  EXPECT_FALSE(j.held());
  bool named = false;
  for (const LessonVerdict& v : j.verdicts) {
    if (v.check.check.find("scenario.loss.result.slowdown >= 1.5 x") != 0) continue;
    named = true;
    EXPECT_EQ(v.outcome, LessonOutcome::kFailed);
    EXPECT_EQ(v.detail, "2.25 >= 1.5 x 7.86") << "what the run measured, on both sides";
  }
  EXPECT_TRUE(named);
  const std::string text = lesson_text(j, "labs/02-dropped-packet/README.md");
  EXPECT_NE(text.find("FAILED  a lost packet costs more than a long path"), std::string::npos) << text;
  EXPECT_NE(text.find("The lesson did not hold in your run: 1 of 4 checks failed"), std::string::npos)
      << text;
  EXPECT_EQ(lesson_json(j)["held"], false);
}

// A run of some scenarios only cannot judge a check that reads the others,
// and a --quick run leaves out the checks that need the full run's scale.
TEST(LessonVerdict, WhatTheRunLeftOutIsNotJudged) {
  const fs::path source = fs::path(fabriclab::build_paths::source_dir()) / "recordings/05-one-slow-path";
  runner::testing::TempDir tmp;
  const fs::path dir = fs::path(tmp.path()) / "05-one-slow-path";
  fs::copy(source, dir, fs::copy_options::recursive);
  nlohmann::json run = nlohmann::json::parse(std::ifstream(dir / "run.json"));
  run["quick"] = true;
  nlohmann::json kept = nlohmann::json::array();
  for (const auto& s : run["scenarios"])
    if (s["name"] != "case-c") kept.push_back(s);
  run["scenarios"] = kept;
  std::ofstream(dir / "run.json") << run.dump(2);

  const LessonJudgement j = judge_lesson(lab_of(source), load_graded_run(dir.string()));
  for (const LessonVerdict& v : j.verdicts) {
    SCOPED_TRACE(v.check.check);
    if (v.check.check.find("case-c") != std::string::npos) {
      EXPECT_EQ(v.outcome, LessonOutcome::kNotJudged);
      EXPECT_EQ(v.detail, "scenario 'case-c' did not run");
    } else if (!v.check.at_quick_scale) {
      EXPECT_EQ(v.outcome, LessonOutcome::kNotJudged);
      EXPECT_EQ(v.detail, "needs a full run (not --quick)");
    } else {
      EXPECT_EQ(v.outcome, LessonOutcome::kHeld) << v.detail;
    }
  }
  EXPECT_TRUE(j.held());
}

// Lab 07's "without SACK the step doubles at a lower loss rate than with
// SACK": a SACK curve measured at every point that never doubles crosses 2
// beyond the sweep, so the check holds; when neither curve reaches 2, or a
// point of the SACK curve has no number (it may have doubled there), it
// does not.
TEST(LessonVerdict, ACurveThatNeverReachesItsLevelCrossesBeyondTheSweep) {
  const fs::path source =
      fs::path(fabriclab::build_paths::source_dir()) / "recordings/07-barrier-amplification";
  const LabDefinition lab = lab_of(source);
  const std::string crossing =
      "sweep.nosack.result.step_slowdown@reaches=2 < sweep.loss.result.step_slowdown@reaches=2";
  auto judge_with = [&](const std::function<void(nlohmann::json& result, const std::string& name)>& edit) {
    runner::testing::TempDir tmp;
    const fs::path dir = fs::path(tmp.path()) / "07-barrier-amplification";
    fs::copy(source, dir, fs::copy_options::recursive);
    nlohmann::json run = nlohmann::json::parse(std::ifstream(dir / "run.json"));
    for (auto& s : run["scenarios"]) edit(s["result"], s["name"].get<std::string>());
    std::ofstream(dir / "run.json") << run.dump(2);
    for (const LessonVerdict& v : judge_lesson(lab, load_graded_run(dir.string())).verdicts)
      if (v.check.check == crossing) return v;
    ADD_FAILURE() << "no such check in lab 07";
    return LessonVerdict{};
  };
  auto flatten = [](nlohmann::json& result, const std::string& name, const std::string& sweep) {
    if (name.rfind(sweep + "-", 0) == 0) result["step_slowdown"] = 1.2;
  };
  const LessonVerdict sack_never = judge_with([&](nlohmann::json& r, const std::string& n) { flatten(r, n, "loss"); });
  EXPECT_EQ(sack_never.outcome, LessonOutcome::kHeld) << sack_never.detail;
  EXPECT_NE(sack_never.detail.find("beyond the sweep"), std::string::npos) << sack_never.detail;

  const LessonVerdict neither = judge_with([&](nlohmann::json& r, const std::string& n) {
    flatten(r, n, "loss");
    flatten(r, n, "nosack");
  });
  EXPECT_EQ(neither.outcome, LessonOutcome::kFailed) << neither.detail;

  const LessonVerdict unmeasured = judge_with([&](nlohmann::json& r, const std::string& n) {
    flatten(r, n, "loss");
    if (n == "loss-5") r.erase("step_slowdown");
  });
  EXPECT_EQ(unmeasured.outcome, LessonOutcome::kFailed) << unmeasured.detail;
}

}  // namespace
}  // namespace fabriclab::runner::grading
