// Per-student conditions at grade time (draw.h, graded_run.h lab_for_run):
// the grader reads run.json `conditions` and loads the lab with them, so an
// exercise that reads `conditions.NAME` has another key for another draw,
// and a recording without conditions grades as the lab's first choices.
// On a copy of the reference recording of lab 02, its run.json edited.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/build_paths.h"
#include "common/input_error.h"
#include "runner/grading/graded_run.h"
#include "runner/grading/value_source.h"
#include "runner/lab/lab_definition.h"
#include "tests/runner/test_support.h"

namespace fabriclab::runner::grading {
namespace {

namespace fs = std::filesystem;

class ConditionsGrading : public ::testing::Test {
 protected:
  void SetUp() override {
    reference_ = root_ / "recordings/02-dropped-packet";
    if (!fs::exists(reference_ / "run.json")) GTEST_SKIP() << "no reference recording of lab 02";
    fs::copy(reference_, dir_.path() + "/rec", fs::copy_options::recursive);
  }
  // The copy's run.json with `conditions` set (null: removed).
  GradedRun recording_with(const nlohmann::json& conditions) {
    const std::string path = dir_.path() + "/rec/run.json";
    nlohmann::json run = nlohmann::json::parse(std::ifstream(path));
    if (conditions.is_null())
      run.erase("conditions");
    else
      run["conditions"] = conditions;
    std::ofstream(path) << run.dump(2);
    return load_graded_run(dir_.path() + "/rec");
  }
  double expected(const std::string& id, const LabDefinition& lab, const GradedRun& rec) {
    for (const Exercise& e : lab.exercises)
      if (e.id == id) return derive(e, lab, rec).number;
    ADD_FAILURE() << "lab 02 has no exercise " << id;
    return 0;
  }

  fs::path root_ = fabriclab::build_paths::source_dir();
  fs::path reference_;
  testing::TempDir dir_;
};

TEST_F(ConditionsGrading, TheRecordedLatencyChangesTheKey) {
  const LabDefinition lab = load_lab((root_ / "labs/02-dropped-packet/lab.toml").string());
  // Without conditions: the first choice, 100 ms: 406 ms / 200 ms.
  const GradedRun plain = recording_with(nullptr);
  const LabDefinition as_run = lab_for_run(lab, plain);
  EXPECT_EQ(as_run.conditions.at("added_latency"), "100ms");
  EXPECT_NEAR(expected("round-trips-latency", as_run, plain), 405.92 / 200, 0.01);
  // The same numbers recorded at 125 ms: the key is 406 / 250.
  const GradedRun drawn = recording_with({{"added_latency", "125ms"}});
  const LabDefinition as_drawn = lab_for_run(lab, drawn);
  EXPECT_EQ(as_drawn.scenarios[1].impair(), "delay 125ms");
  EXPECT_NEAR(expected("round-trips-latency", as_drawn, drawn), 405.92 / 250, 0.01);
  // A ratio of two recorded numbers does not read the conditions.
  EXPECT_NEAR(expected("loss-over-latency", as_drawn, drawn), 7.865 / 2.2516, 0.01);
}

TEST_F(ConditionsGrading, ConditionsTheLabDoesNotOfferAreRefused) {
  const LabDefinition lab = load_lab((root_ / "labs/02-dropped-packet/lab.toml").string());
  EXPECT_THROW(lab_for_run(lab, recording_with({{"added_latency", "60ms"}})), InputError);
}

}  // namespace
}  // namespace fabriclab::runner::grading
