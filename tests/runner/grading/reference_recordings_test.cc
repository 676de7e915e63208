// The lessons each reference recording (recordings/NN-*/, made by the lead
// with real runs) must show, read from its run.json, and lab 07's grading of
// a curve that never doubles. How the recordings grade with their
// hand-written answers: hand_written_answers_test.cc. Skips, saying why,
// while no reference recording exists.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/build_paths.h"
#include "runner/lab/lab_definition.h"
#include "runner/lab/seed_pick.h"
#include "tests/runner/grading/grading_fixture.h"
#include "tests/runner/test_support.h"
#include "tests/support/child_process.h"
#include "tests/support/ci_skip.h"

namespace fabriclab::runner::grading {
namespace {

namespace fs = std::filesystem;
using fabriclab::testing::run_command;

// A reference recording that stores its lesson's verdict (run.json
// `lesson`, what `fabriclab progress` shows) stores the checks its lab.toml
// states now: a threshold changed without a new recording would show the
// student a verdict on a check the lab no longer makes (lab 11's held 0.7 x
// and 35% after lab.toml moved to 0.9 x and 40%). Recordings from before
// lessons store none.
TEST(ReferenceRecordings, StoredLessonIsTheLabsCurrentOne) {
  const fs::path source(fabriclab::build_paths::source_dir());
  int compared = 0;
  for (const auto& entry : fs::directory_iterator(source / "recordings")) {
    const fs::path run_json = entry.path() / "run.json";
    if (!fs::exists(run_json)) continue;
    const nlohmann::json run = nlohmann::json::parse(std::ifstream(run_json));
    if (!run.contains("lesson")) continue;
    const std::string name = entry.path().filename().string();
    const runner::LabDefinition lab = runner::load_lab((source / "labs" / name / "lab.toml").string());
    std::vector<std::string> stored, current;
    for (const nlohmann::json& c : run["lesson"].at("checks")) stored.push_back(c.at("check"));
    for (const runner::LessonCheck& c : lab.lesson) current.push_back(c.check);
    EXPECT_EQ(stored, current) << name << ": run.json's lesson is not lab.toml's; record it again";
    ++compared;
  }
  EXPECT_GE(compared, 2) << "labs 10 and 11 store their lesson";
}

// Issue 18's check, on the reference run: the same-host placement puts no
// byte on the fabric's links; step time orders same host <= same ToR <
// across the spines; the bytes double with the links crossed; and the
// uplinks carry traffic only where a placement crosses them.
TEST(ReferenceRecordings, Lab09PlacementOrdersTheStepsAndTheBytes) {
  const fs::path dir = fs::path(fabriclab::build_paths::source_dir()) / "recordings/09-placement";
  if (!fs::exists(dir / "run.json")) SKIP_OR_FAIL_IN_CI("no " << dir << "/run.json yet");
  std::map<std::string, nlohmann::json> result;
  const nlohmann::json run = nlohmann::json::parse(std::ifstream(dir / "run.json"));
  for (const auto& s : run.at("scenarios")) result[s.at("name").get<std::string>()] = s.at("result");
  const auto p50 = [&](const char* s) { return result.at(s).at("median_step_ms").get<double>(); };
  const auto bytes = [&](const char* s) { return result.at(s).at("link_bytes").get<double>(); };
  EXPECT_EQ(bytes("same-host"), 0);
  EXPECT_LE(p50("same-host"), p50("same-tor"));
  EXPECT_LT(p50("same-tor"), p50("cross-spine"));
  EXPECT_NEAR(bytes("cross-spine") / bytes("same-tor"), 2.0, 0.1) << "four links crossed, not two";
  EXPECT_EQ(result.at("same-tor").at("uplink_bytes").get<double>(), 0);
  EXPECT_GT(result.at("cross-spine").at("uplink_bytes").get<double>(), 0);
  for (const char* draw : {"ecmp-a", "ecmp-b", "ecmp-c"})
    EXPECT_TRUE(result.at(draw).at("hot_spine").is_string()) << draw;
}

// Issue 17's check, on the reference run: ecn marks and retransmits far
// less than taildrop; lossless drops nothing and pauses; and the victim,
// which never crosses the congested port, waits in lossless only.
TEST(ReferenceRecordings, Lab08MarksInsteadOfDropsAndPausesHitTheVictim) {
  const fs::path dir = fs::path(fabriclab::build_paths::source_dir()) /
                       "recordings/08-congestion-without-casualties";
  if (!fs::exists(dir / "run.json")) SKIP_OR_FAIL_IN_CI("no " << dir << "/run.json yet");
  std::map<std::string, nlohmann::json> result;
  const nlohmann::json run = nlohmann::json::parse(std::ifstream(dir / "run.json"));
  for (const auto& s : run.at("scenarios"))
    result[s.at("name").get<std::string>()] = s.at("result");
  EXPECT_GT(result.at("ecn").at("marks").get<double>(), 0);
  EXPECT_LT(result.at("ecn").at("retransmits").get<double>() * 10,
            result.at("taildrop").at("retransmits").get<double>());
  EXPECT_EQ(result.at("lossless").at("drops").get<double>(), 0);
  EXPECT_GT(result.at("lossless").at("paused_ms").get<double>(), 0);
  EXPECT_GT(result.at("lossless").at("victim_rtt_ms").get<double>(),
            10 * result.at("ecn").at("victim_rtt_ms").get<double>());
}

// Issue 16's check for lab 05, on the reference run: the rank the summary
// names -- the straggler of the slow-worker case, the slow link of the two
// link cases -- is the one seed_pick drew for the run's seed.
TEST(ReferenceRecordings, Lab05NamesTheSeedsRankFromTheMeasurementsAlone) {
  const fs::path dir =
      fs::path(fabriclab::build_paths::source_dir()) / "recordings/05-one-slow-path";
  if (!fs::exists(dir / "run.json")) SKIP_OR_FAIL_IN_CI("no " << dir << "/run.json yet");
  const nlohmann::json run = nlohmann::json::parse(std::ifstream(dir / "run.json"));
  const int expected = static_cast<int>(runner::seed_pick(run.at("seed").get<uint64_t>(), "slow_rank", 4));
  std::map<std::string, nlohmann::json> results;
  for (const auto& s : run.at("scenarios")) results[s.at("name")] = s.at("result");
  EXPECT_EQ(results.at("case-a").at("slow_link"), expected) << "the delayed link";
  EXPECT_EQ(results.at("case-b").at("straggler"), expected) << "the slow worker";
  EXPECT_EQ(results.at("case-c").at("slow_link"), expected) << "the lossy link";
  EXPECT_TRUE(results.at("clean").at("straggler").is_null());
  EXPECT_TRUE(results.at("case-a").at("straggler").is_null()) << "a slow link holds everyone alike";
}

// Issue 37's check for lab 12, on the reference run: the seed's node has
// the longest round trip; the port toward it paused and marked nothing (its
// connections never negotiated ECN); clean and fixed paused no port.
TEST(ReferenceRecordings, Lab12TheSeedsNodeIsPausedAndNeverMarked) {
  const fs::path dir =
      fs::path(fabriclab::build_paths::source_dir()) / "recordings/12-find-the-node";
  if (!fs::exists(dir / "run.json")) SKIP_OR_FAIL_IN_CI("no " << dir << "/run.json yet");
  const nlohmann::json run = nlohmann::json::parse(std::ifstream(dir / "run.json"));
  const int node =
      static_cast<int>(runner::seed_pick(run.at("seed").get<uint64_t>(), "reimaged_node", 4));
  std::map<std::string, nlohmann::json> results;
  for (const auto& s : run.at("scenarios")) results[s.at("name")] = s.at("result");
  EXPECT_EQ(results.at("reimaged").at("longest_rtt"), node);
  EXPECT_GT(results.at("reimaged").at("paused_ms").get<double>(), 0);
  EXPECT_EQ(results.at("clean").at("paused_ms").get<double>(), 0);
  EXPECT_EQ(results.at("fixed").at("paused_ms").get<double>(), 0);
  // The last counters sample of reimaged: the port toward the node.
  nlohmann::json ports;
  std::ifstream metrics(dir / "metrics.jsonl");
  for (std::string line; std::getline(metrics, line);) {
    const nlohmann::json e = nlohmann::json::parse(line);
    if (e.value("scenario", "") == "reimaged" && e.value("event", "") == "counters" &&
        e.contains("queues"))
      ports = e.at("queues");
  }
  const nlohmann::json& toward = ports.at("r" + std::to_string(node));
  EXPECT_EQ(toward.at("marked").get<int>(), 0);
  EXPECT_GT(toward.at("paused_ms").get<double>(), 0);
}

// Issue 15's check for lab 04, on the reference run: the slow link is the
// one seed_pick chose for the run's seed, and the slow sweep's busbw is 0.2
// to 0.35 of clean's at the largest size (a ring at a quarter-rate link).
TEST(ReferenceRecordings, Lab04SlowRankIsTheSeedsAndBusbwDropsToAQuarter) {
  const fs::path dir =
      fs::path(fabriclab::build_paths::source_dir()) / "recordings/04-allreduce-bandwidth";
  if (!fs::exists(dir / "run.json")) SKIP_OR_FAIL_IN_CI("no " << dir << "/run.json yet");
  const nlohmann::json run = nlohmann::json::parse(std::ifstream(dir / "run.json"));
  const uint64_t seed = run.at("seed").get<uint64_t>();
  const std::string expected = "r" + std::to_string(runner::seed_pick(seed, "slow_rank", 4));
  for (const auto& s : run.at("scenarios")) {
    if (s.at("name") != "slow") continue;
    EXPECT_EQ(s.at("link_picks").at("slow_rank"), expected);
    bool slowed = false;
    for (const auto& entry : s.at("impairments"))
      slowed = slowed || (entry.at("spec") == "rate 50mbit" &&
                          entry.at("links") == nlohmann::json::array({expected}));
    EXPECT_TRUE(slowed) << s.at("impairments").dump(2);
    const double ratio = s.at("result").at("busbw_ratio").get<double>();
    EXPECT_GE(ratio, 0.2);
    EXPECT_LE(ratio, 0.35);
    return;
  }
  ADD_FAILURE() << "no scenario 'slow' in " << dir;
}


// Lab 07's doubling point on a curve that never doubles: the reference run
// with every point's step_slowdown capped below 2. The grader must expect
// "none" -- never an extrapolated number -- and say why a number fails.
TEST(ReferenceRecordings, Lab07CurveThatNeverDoublesExpectsNone) {
  const fs::path source =
      fs::path(fabriclab::build_paths::source_dir()) / "recordings/07-barrier-amplification";
  if (!fs::exists(source / "run.json")) SKIP_OR_FAIL_IN_CI("no " << source << "/run.json yet");
  runner::testing::TempDir tmp;
  const fs::path dir = fs::path(tmp.path()) / "07-never";
  fs::copy(source, dir, fs::copy_options::recursive);
  nlohmann::json run = nlohmann::json::parse(std::ifstream(dir / "run.json"));
  for (auto& s : run.at("scenarios")) {
    auto& r = s.at("result");
    r["step_slowdown"] = std::min(r.at("step_slowdown").get<double>(), 1.9);
  }
  std::ofstream(dir / "run.json") << run.dump(2);
  const std::string labs = std::string(fabriclab::build_paths::source_dir()) + "/labs";
  const auto grade = [&](const std::string& answers) {
    testing::write_text(tmp.path() + "/answers.toml", answers);
    return run_command({fabriclab::build_paths::fabriclab_binary(), "grade", "07", "--labs", labs,
                        "--recording", dir.string(), "--answers", tmp.path() + "/answers.toml"});
  };
  const auto none = grade("doubling-loss = \"none\"\n");
  EXPECT_NE(none.output.find("PASS  doubling-loss"), std::string::npos) << none.output;
  const auto number = grade("doubling-loss = 5.0\n");
  EXPECT_NE(number.output.find("FAIL  doubling-loss"), std::string::npos) << number.output;
  EXPECT_NE(number.output.find("never reaches"), std::string::npos) << number.output;
}

}  // namespace
}  // namespace fabriclab::runner::grading
