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
#include <iostream>
#include <nlohmann/json.hpp>

#include "common/build_paths.h"
#include "runner/grading/graded_run.h"
#include "runner/grading/value_source.h"
#include "runner/lab/lab_definition.h"
#include "tests/runner/grading/second_recording.h"
#include "tests/runner/test_support.h"
#include "tests/support/child_process.h"
#include "tests/support/ci_skip.h"

namespace fabriclab::runner::grading {
namespace {

namespace fs = std::filesystem;
using fabriclab::testing::run_command;
using testing::RunChange;

// The second recording of each lab: the reference with these scenarios'
// measurements moved under each other's names (second_recording.h; X <- Y:
// X now holds what Y measured) and a seed that draws other ranks. Each was
// picked so that every run-dependent exercise's expected value moves:
struct LabCase {
  const char* id;
  RunChange change;
};
const LabCase kLabs[] = {
    // One scenario, nothing to swap: the model learned less, every eval 4
    // points lower (step 800: 0.8509 -> 0.8109, outside the 0.005).
    {"01", {{}, -0.04}},
    // latency holds the stalled run, loss latency's, both loss's: all three
    // slowdowns, the stall and latency's net ms move; part 2 swapped: the
    // default run's net ms is 641 (< 700, so not the idle restart).
    {"02",
     {{{"latency", "both"},
       {"loss", "latency"},
       {"both", "loss"},
       {"long-steps", "long-steps-linux"},
       {"long-steps-linux", "long-steps"}}}},
    // large-4 holds small-2 (2 ranks: 4.21 B/param, overhead 5.3%). The
    // overhead is the wire's headers, 4.6-5.3% in every scenario, so no swap
    // moves it by much more than its 0.005 tolerance: small-2's is the
    // farthest (0.0467 -> 0.0533).
    {"03", {{{"large-4", "small-2"}, {"small-2", "large-4"}}}},
    // The sweeps swapped (busbw 0.0235 -> 0.00608, x base 0.26 -> 3.9) and a
    // seed that slows another rank than r2.
    {"04", {{{"clean", "slow"}, {"slow", "clean"}}}},
    // The cases rotated: the slow worker is now case-a, the lossy link
    // case-b (its others' wait 0.41, x clean 1.02); and another seed.
    {"05", {{{"case-a", "case-b"}, {"case-b", "case-c"}, {"case-c", "case-a"}}}},
    // The two slowdowns swapped: idle s, $ and the worst stall all move.
    {"06", {{{"long-link", "flaky-link"}, {"flaky-link", "long-link"}}}},
    // The sweeps swapped point for point (loss-5 has no gbn twin and stays):
    // SACK's curve doubles at 0.36%, go-back-N's never ("none").
    {"07",
     {{{"loss-0", "gbn-0"},
       {"gbn-0", "loss-0"},
       {"loss-0p1", "gbn-0p1"},
       {"gbn-0p1", "loss-0p1"},
       {"loss-0p5", "gbn-0p5"},
       {"gbn-0p5", "loss-0p5"},
       {"loss-1", "gbn-1"},
       {"gbn-1", "loss-1"},
       {"loss-2", "gbn-2"},
       {"gbn-2", "loss-2"}}}},
    // The port modes rotated: "ecn" retransmitted 533 and marked nothing,
    // "lossless" paused nothing and its victim waited 0.2 ms, p99 reordered.
    {"08", {{{"taildrop", "lossless"}, {"ecn", "taildrop"}, {"lossless", "ecn"}}}},
    // Placements rotated so that same-host carries bytes, the p50 order and
    // cross-spine's x same-host move, ecmp-a's hot spine is spine1 (it holds
    // cross-spine, no tenant), and only ecmp-c collided (tenant 79 Mb/s).
    {"09",
     {{{"same-host", "same-tor"},
       {"same-tor", "same-host"},
       {"cross-spine", "ecmp-b"},
       {"ecmp-a", "cross-spine"},
       {"ecmp-b", "ecmp-c"},
       {"ecmp-c", "ecmp-a"}}}},
};

// An exercise's expected answer on one recording, or why there is none.
struct Expected {
  bool error = false;
  Value value;
};

Expected expected_of(const Exercise& ex, const LabDefinition& lab, const GradedRun& rec) {
  try {
    return {false, derive(ex, lab, rec)};
  } catch (const std::exception&) {
    return {true, {}};  // the grader fails the exercise saying why
  }
}

enum class Moved { kNo, kYes, kUnclear };
void PrintTo(Moved m, std::ostream* out) {
  *out << (m == Moved::kYes  ? "moved"
           : m == Moved::kNo ? "not moved"
                             : "moved within the tolerance");
}

// Whether the second recording moved an exercise's expected answer so far
// that an answer right for the first cannot be right for it.
Moved compare(const Exercise& ex, const Expected& first, const Expected& second) {
  if (first.error || second.error) return first.error == second.error ? Moved::kNo : Moved::kYes;
  const Value& a = first.value;
  const Value& b = second.value;
  if (a.type != b.type) return Moved::kYes;
  switch (a.type) {
    case Value::Type::kNull:
      return Moved::kNo;
    case Value::Type::kNumber: {
      // The grader's own rule (grader.cc): within the tolerance of the expected value.
      const double allowed = std::max({ex.tolerance.absolute,
                                       ex.tolerance.relative_percent / 100 * std::fabs(b.number),
                                       1e-9 * std::max(1.0, std::fabs(b.number))});
      const double moved = std::fabs(a.number - b.number);
      if (moved <= 1e-9 * std::max(1.0, std::fabs(b.number))) return Moved::kNo;
      return moved > allowed ? Moved::kYes : Moved::kUnclear;
    }
    case Value::Type::kText:
      return a.text == b.text ? Moved::kNo : Moved::kYes;
    case Value::Type::kList: {
      if (a.list == b.list) return Moved::kNo;
      if (ex.kind != Kind::kChoice) return Moved::kYes;  // an ordering: another order
      // Several options may be right; a student's key fails only when none
      // right before is right now.
      for (const std::string& key : a.list) {
        if (std::find(b.list.begin(), b.list.end(), key) != b.list.end()) return Moved::kUnclear;
      }
      return Moved::kYes;
    }
  }
  return Moved::kUnclear;
}

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
  fs::path reference;
  for (const auto& entry : fs::directory_iterator(root / "recordings")) {
    if (entry.path().filename().string().rfind(std::string(c.id) + "-", 0) == 0 &&
        fs::exists(entry.path() / "run.json"))
      reference = entry.path();
  }
  if (reference.empty()) {
    SKIP_OR_FAIL_IN_CI("no reference recording recordings/" << c.id << "-*/");
  }
  const std::string answers = (reference / "answers.toml").string();
  ASSERT_TRUE(fs::exists(answers)) << "no hand-written " << answers;
  const LabDefinition lab = load_lab(find_lab_file((root / "labs").string(), c.id));

  // (a) The hand-written answers pass every exercise of the reference --
  // but a prediction, which no answers file can give after the run: the
  // reference recordings were made before predictions existed (their
  // run.json has none), so each grades as not predicted, 0 points.
  int code = -1;
  const nlohmann::json first = grade_json(c.id, reference.string(), answers, &code);
  const bool predictions = std::any_of(lab.exercises.begin(), lab.exercises.end(),
                                       [](const Exercise& e) { return e.kind == Kind::kPrediction; });
  EXPECT_EQ(code, predictions ? 1 : 0) << first.dump(2);
  EXPECT_EQ(first.value("consistent", false), true) << first.dump(2);
  const auto first_status = statuses(first);
  EXPECT_EQ(first_status.size(), lab.exercises.size()) << first.dump(2);
  for (const Exercise& ex : lab.exercises) {
    EXPECT_EQ(first_status.count(ex.id) ? first_status.at(ex.id) : "",
              ex.kind == Kind::kPrediction ? "fail" : "pass")
        << ex.id;
  }
  for (const auto& e : first.value("exercises", nlohmann::json::array())) {
    if (e.value("kind", "") != "prediction") continue;
    EXPECT_EQ(e.value("reason", ""), "not predicted before the run") << e.dump();
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

// Names the lab in test output instead of the parameter's bytes.
void PrintTo(const LabCase& c, std::ostream* out) { *out << "lab " << c.id; }

class HandWrittenAnswers : public ::testing::TestWithParam<LabCase> {};

TEST_P(HandWrittenAnswers, PassOnTheirRecordingAndFailWhereAnotherRunDiffers) {
  check_lab(GetParam());
}

INSTANTIATE_TEST_SUITE_P(Labs, HandWrittenAnswers, ::testing::ValuesIn(kLabs),
                         [](const ::testing::TestParamInfo<LabCase>& info) {
                           return std::string("Lab") + info.param.id;
                         });

}  // namespace
}  // namespace fabriclab::runner::grading
