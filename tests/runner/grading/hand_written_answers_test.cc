// Honest grading (issue 33): each reference recording (recordings/NN-*/)
// ships an answers.toml written by hand from its tables, as a student would,
// and the real `fabriclab grade` must
//  (a) pass every exercise of it on the reference recording, and
//  (b) fail, on a second, different recording of the same lab, every exercise
//      that claims to depend on the run (from = "recording" or "seed") and
//      whose expected value the second recording changes -- the same answers
//      were written for another run, so an exercise that still passes does not
//      read the run it says it reads.
// Which exercises must fail is computed, not listed: the grader's own
// derivation (value_source.h) is evaluated on both recordings and compared
// (beyond the exercise's tolerance; a choice fails only when no key is right
// in both). An exercise whose value does not move must still pass. Each lab's
// change below is chosen so that every run-dependent exercise's value moves,
// and the test holds it to that, so a change that stops moving one says so.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <nlohmann/json.hpp>

#include "common/build_paths.h"
#include "runner/grading/graded_run.h"
#include "runner/grading/value_source.h"
#include "runner/lab/lab_definition.h"
#include "tests/runner/grading/second_recording.h"
#include "tests/runner/grading/second_recording_cases.h"
#include "tests/runner/test_support.h"
#include "tests/support/child_process.h"
#include "tests/support/ci_skip.h"

namespace fabriclab::runner::grading {
namespace {

namespace fs = std::filesystem;
using fabriclab::testing::run_command;

using testing::compare;
using testing::expected_of;
using testing::LabCase;
using testing::Moved;

nlohmann::json grade_json(const std::string& lab_id, const std::string& recording,
                          const std::string& answers, int* exit_code) {
  const std::string labs = std::string(fabriclab::build_paths::source_dir()) + "/labs";
  const auto run =
      run_command({fabriclab::build_paths::fabriclab_binary(), "grade", lab_id, "--labs", labs,
                   "--recording", recording, "--answers", answers, "--json"});
  *exit_code = run.status.code;
  const size_t brace = run.output.find('{');
  if (brace == std::string::npos) {
    ADD_FAILURE() << "no JSON from fabriclab grade:\n" << run.output;
    return nlohmann::json::object();
  }
  return nlohmann::json::parse(run.output.substr(brace));
}

std::map<std::string, std::string> statuses(const nlohmann::json& graded) {
  std::map<std::string, std::string> out;
  for (const auto& e : graded.value("exercises", nlohmann::json::array()))
    out[e.at("id").get<std::string>()] = e.at("status").get<std::string>();
  return out;
}

void check_lab(const LabCase& c) {
  const fs::path root = fabriclab::build_paths::source_dir();
  const fs::path reference = testing::reference_recording(c.id);
  if (reference.empty()) {
    SKIP_OR_FAIL_IN_CI("no reference recording recordings/" << c.id << "-*/");
  }
  const std::string answers = (reference / "answers.toml").string();
  ASSERT_TRUE(fs::exists(answers)) << "no hand-written " << answers;
  const LabDefinition lab = load_lab(find_lab_file((root / "labs").string(), c.id));

  // (a) The hand-written answers pass every exercise of the reference --
  // but a prediction the run did not record, which no answers file can give
  // after the run: the reference recordings made before predictions existed
  // (their run.json has none) grade it as not predicted, 0 points; lab 12's
  // was recorded before its scenario, and passes.
  int code = -1;
  const nlohmann::json first = grade_json(c.id, reference.string(), answers, &code);
  const GradedRun reference_run = load_graded_run(reference.string());
  std::set<std::string> recorded;
  for (const auto& p : reference_run.run.value("predictions", nlohmann::json::array()))
    recorded.insert(p.value("id", std::string()));
  EXPECT_EQ(first.value("consistent", false), true) << first.dump(2);
  const auto first_status = statuses(first);
  // Exit 1 exactly when an exercise did not pass: only predictions may
  // (unrecorded, or recorded off the mark and given half), checked below.
  const bool any_not_passed = std::any_of(first_status.begin(), first_status.end(),
                                          [](const auto& s) { return s.second != "pass"; });
  EXPECT_EQ(code, any_not_passed ? 1 : 0) << first.dump(2);
  EXPECT_EQ(first_status.size(), lab.exercises.size()) << first.dump(2);
  for (const Exercise& ex : lab.exercises) {
    if (ex.kind == Kind::kPrediction) continue;  // below
    EXPECT_EQ(first_status.count(ex.id) ? first_status.at(ex.id) : "", "pass") << ex.id;
  }
  // A reference made since predictions exist may have recorded one (labs 11
  // and 12's run.json `predictions`): it is graded on that value, pass or
  // half the points, whatever the answers file says.
  // A passing exercise's reason is null.
  auto reason = [](const nlohmann::json& e) {
    const auto it = e.find("reason");
    return it != e.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  for (const auto& e : first.value("exercises", nlohmann::json::array())) {
    if (e.value("kind", "") != "prediction") continue;
    if (recorded.count(e.value("id", std::string()))) {
      EXPECT_NE(reason(e), "not predicted before the run") << e.dump();
      EXPECT_GT(e.value("earned", -1), 0) << e.dump();
      continue;
    }
    EXPECT_EQ(reason(e), "not predicted before the run") << e.dump();
    EXPECT_EQ(e.value("earned", -1), 0) << e.dump();
  }

  // (b) The same answers on the second recording.
  runner::testing::TempDir tmp;
  const std::string second_dir = tmp.path() + "/" + c.id + "-second";
  testing::write_second_recording(reference.string(), second_dir, c.change);
  const nlohmann::json second = grade_json(c.id, second_dir, answers, &code);
  // Consistent, so what fails fails on its value, not as damage.
  EXPECT_EQ(second.value("consistent", false), true) << second.dump(2);
  EXPECT_TRUE(second.value("problems", nlohmann::json::array()).empty()) << second.dump(2);
  const auto second_status = statuses(second);

  const GradedRun before = load_graded_run(reference.string());
  const GradedRun after = load_graded_run(second_dir);
  int run_dependent = 0, must_fail = 0;
  for (const Exercise& ex : lab.exercises) {
    SCOPED_TRACE(std::string("lab ") + c.id + ", exercise " + ex.id);
    const std::string status = second_status.count(ex.id) ? second_status.at(ex.id) : "";
    // No answer: checked on each run alone, or (a prediction) graded on the
    // value the run recorded.
    if (ex.kind == Kind::kProperty || ex.kind == Kind::kPrediction) continue;
    if (ex.from == Source::kLab) {
      EXPECT_EQ(status, "pass") << "it does not depend on the run";
      continue;
    }
    ++run_dependent;
    if (!ex.depends_on_run) continue;  // declared in lab.toml: readme_answers_test lists it
    const Moved moved = compare(ex, expected_of(ex, lab, before), expected_of(ex, lab, after));
    if (moved == Moved::kYes) {
      ++must_fail;
      EXPECT_EQ(status, "fail") << "its expected value moved, yet the old answer passes";
    } else if (moved == Moved::kNo) {
      EXPECT_EQ(status, "pass") << "its expected value did not move";
    }
    EXPECT_EQ(moved, Moved::kYes) << "this lab's change (kLabs) leaves the exercise's value "
                                  << "(nearly) where it was, so it tests nothing; change more";
  }
  if (must_fail > 0) {
    EXPECT_EQ(code, 1);
  }
  std::cout << "lab " << c.id << ": hand-written answers pass " << first_status.size()
            << " exercises on the reference; the second recording must fail " << must_fail << " of "
            << run_dependent << " run-dependent exercises\n";
}


class HandWrittenAnswers : public ::testing::TestWithParam<LabCase> {};

TEST_P(HandWrittenAnswers, PassOnTheirRecordingAndFailWhereAnotherRunDiffers) {
  check_lab(GetParam());
}

INSTANTIATE_TEST_SUITE_P(Labs, HandWrittenAnswers, ::testing::ValuesIn(testing::lab_cases()),
                         [](const ::testing::TestParamInfo<LabCase>& info) {
                           return std::string("Lab") + info.param.id;
                         });

}  // namespace
}  // namespace fabriclab::runner::grading
