// `fabriclab progress` through the real binary, on a runs folder holding
// copies of the reference recordings of labs 02 and 05 with their
// hand-written answers (which pass: recordings/*/answers.toml), a copy with
// one answer made wrong, and a run.json that is not JSON: each shows on its
// own lab's lines, the others still list, exit 0.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "common/build_paths.h"
#include "tests/runner/test_support.h"
#include "tests/support/child_process.h"

namespace fabriclab {
namespace {

namespace fs = std::filesystem;
using fabriclab::testing::run_command;
using nlohmann::json;

const fs::path kSource = fabriclab::build_paths::source_dir();

class ProgressCommand : public ::testing::Test {
 protected:
  // A copy of recordings/<name> as the run directory runs/<id>-<stamp>.
  fs::path copy_recording(const std::string& name, const std::string& stamp) {
    const fs::path to = runs() / (name.substr(0, 2) + "-" + stamp);
    fs::create_directories(runs());
    fs::copy(kSource / "recordings" / name, to, fs::copy_options::recursive);
    return to;
  }

  fabriclab::testing::RunResult progress(bool as_json) {
    std::vector<std::string> argv = {fabriclab::build_paths::fabriclab_binary(),
                                     "progress",
                                     "--runs",
                                     runs().string(),
                                     "--labs",
                                     (kSource / "labs").string()};
    if (as_json) argv.push_back("--json");
    return run_command(argv);
  }

  json progress_json() {
    const auto r = progress(true);
    EXPECT_EQ(r.status.code, 0) << r.output;
    return json::parse(r.output.substr(r.output.find('{')));
  }

  static const json& lab(const json& out, const std::string& id) {
    for (const json& entry : out["labs"])
      if (entry["id"] == id) return entry;
    ADD_FAILURE() << "no lab " << id << " in " << out.dump(2);
    static const json none;
    return none;
  }

  fs::path runs() const { return fs::path(dir_.path()) / "runs"; }

  runner::testing::TempDir dir_;
};

TEST_F(ProgressCommand, ReferenceRecordingsWithTheirAnswersAreDone) {
  copy_recording("02-dropped-packet", "20261120T100000Z-aaaaaa");
  copy_recording("05-one-slow-path", "20261121T100000Z-bbbbbb");
  const json out = progress_json();
  EXPECT_EQ(out["format"], "fabriclab-progress");
  for (const char* id : {"02", "05"}) {
    SCOPED_TRACE(id);
    const json& entry = lab(out, id);
    EXPECT_EQ(entry["state"], "done") << entry.dump(2);
    EXPECT_GT(entry["grade"]["max_score"].get<int>(), 0);
    EXPECT_EQ(entry["grade"]["score"], entry["grade"]["max_score"]);
    EXPECT_EQ(entry["grade"]["max_score"], entry["max_score"]);
    EXPECT_EQ(entry["run"]["quick"], false);
  }
  EXPECT_EQ(lab(out, "01")["state"], "not run");
  EXPECT_TRUE(lab(out, "01")["run"].is_null());
  EXPECT_EQ(out["total"]["done"], 2);
  EXPECT_EQ(out["total"]["score"],
            lab(out, "02")["max_score"].get<int>() + lab(out, "05")["max_score"].get<int>());

  const auto text = progress(false);
  EXPECT_EQ(text.status.code, 0) << text.output;
  EXPECT_TRUE(std::regex_search(text.output, std::regex("\n02  What one dropped packet costs +done\n")))
      << text.output;
  EXPECT_TRUE(std::regex_search(text.output, std::regex("01  .* not run \\(fabriclab run 01\\)\n")))
      << text.output;
  EXPECT_NE(text.output.find("full"), std::string::npos) << text.output;
  EXPECT_TRUE(std::regex_search(text.output, std::regex("\nTotal: 2 of [0-9]+ labs done, [0-9]+/[0-9]+ points\n")))
      << text.output;
}

TEST_F(ProgressCommand, OneWrongAnswerShowsThatExerciseFailing) {
  const fs::path run = copy_recording("05-one-slow-path", "20261121T100000Z-bbbbbb");
  // The answers say the slow worker was in case-a; it was case-b.
  std::string text = fabriclab::testing::read_file((run / "answers.toml").string());
  const std::string right = "slow-worker-case = \"case-b\"";
  ASSERT_NE(text.find(right), std::string::npos) << text;
  text.replace(text.find(right), right.size(), "slow-worker-case = \"case-a\"");
  std::ofstream(run / "answers.toml", std::ios::trunc) << text;

  const json out = progress_json();
  const json& entry = lab(out, "05");
  EXPECT_EQ(entry["state"], "failing") << entry.dump(2);
  EXPECT_EQ(entry["grade"]["failing"], json::array({"slow-worker-case"}));
  EXPECT_LT(entry["grade"]["score"].get<int>(), entry["grade"]["max_score"].get<int>());
  const auto listing = progress(false);
  EXPECT_NE(listing.output.find("1 exercise failing: slow-worker-case"), std::string::npos)
      << listing.output;
}

// run.json's "lesson" as the run recorded it (the reference recordings
// predate it): the verdict shows beside the run, whatever the grade.
TEST_F(ProgressCommand, TheRunsOwnLessonVerdictShows) {
  const fs::path run = copy_recording("02-dropped-packet", "20261120T100000Z-aaaaaa");
  json manifest = runner::testing::read_json((run / "run.json").string());
  manifest["lesson"] = {{"held", false}, {"checks", json::array()}};
  manifest["quick"] = true;
  std::ofstream(run / "run.json", std::ios::trunc) << manifest.dump(2);
  const json out = progress_json();
  EXPECT_EQ(lab(out, "02")["run"]["lesson_held"], false);
  EXPECT_EQ(lab(out, "02")["run"]["quick"], true);
  EXPECT_TRUE(lab(out, "05")["run"].is_null());
  const auto listing = progress(false);
  EXPECT_NE(listing.output.find("--quick run, lesson NOT held"), std::string::npos)
      << listing.output;
}

TEST_F(ProgressCommand, ARunWithoutAnswersIsNotAnsweredYet) {
  const fs::path run = copy_recording("02-dropped-packet", "20261120T100000Z-aaaaaa");
  fs::remove(run / "answers.toml");
  const json out = progress_json();
  EXPECT_EQ(lab(out, "02")["state"], "not graded");
  EXPECT_TRUE(lab(out, "02")["grade"].is_null());
  const auto listing = progress(false);
  EXPECT_NE(listing.output.find("not answered yet"), std::string::npos) << listing.output;
}

TEST_F(ProgressCommand, ADamagedRunJsonShowsOnItsLineAndTheListingGoesOn) {
  copy_recording("02-dropped-packet", "20261120T100000Z-aaaaaa");
  const fs::path broken = copy_recording("05-one-slow-path", "20261121T100000Z-bbbbbb");
  std::ofstream(broken / "run.json", std::ios::trunc) << "{\"format\": \"fabriclab-run\",\n";
  const auto listing = progress(false);
  EXPECT_EQ(listing.status.code, 0) << listing.output;
  EXPECT_TRUE(std::regex_search(listing.output,
                                std::regex("last run: damaged: .*05-20261121T100000Z-bbbbbb/"
                                           "run.json:[0-9]+: ")))
      << listing.output;
  EXPECT_TRUE(std::regex_search(listing.output, std::regex("\n05  .* damaged")))
      << listing.output;
  EXPECT_TRUE(std::regex_search(listing.output, std::regex("\n09  ")))
      << "the labs after it still list\n" << listing.output;
  const json out = progress_json();
  EXPECT_EQ(lab(out, "05")["state"], "damaged");
  EXPECT_NE(lab(out, "05")["problem"].get<std::string>().find("run.json"), std::string::npos);
  EXPECT_EQ(lab(out, "02")["state"], "done");
}

}  // namespace
}  // namespace fabriclab
