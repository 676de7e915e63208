// `fabriclab cost` on the reference recordings of labs 05 and 06: its dollars
// are the arithmetic of common/wait_cost.h on the results in run.json,
// redone here by hand; what-ifs give the curriculum's own figures; bad input
// exits 2 saying what was expected.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/build_paths.h"
#include "tests/support/child_process.h"
#include "tests/support/ci_skip.h"

namespace fabriclab {
namespace {

namespace fs = std::filesystem;
using fabriclab::testing::run_command;
using nlohmann::json;

json cost_json(std::vector<std::string> args) {
  args.insert(args.begin(), {fabriclab::build_paths::fabriclab_binary(), "cost"});
  args.push_back("--json");
  const auto result = run_command(args);
  EXPECT_EQ(result.status.code, 0) << result.output;
  return json::parse(result.output.substr(result.output.find('{')));
}

std::vector<fs::path> reference_recordings() {
  std::vector<fs::path> out;
  for (const char* name : {"05-one-slow-path", "06-cost-of-waiting"}) {
    const fs::path dir = fs::path(fabriclab::build_paths::source_dir()) / "recordings" / name;
    if (fs::exists(dir / "run.json")) out.push_back(dir);
  }
  return out;
}

TEST(CostCommand, PricesARecordingAsItsRunJsonSays) {
  const auto recordings = reference_recordings();
  if (recordings.empty()) SKIP_OR_FAIL_IN_CI("no reference recording of lab 05 or 06 yet");
  for (const fs::path& dir : recordings) {
    SCOPED_TRACE(dir.string());
    std::ifstream in(dir / "run.json");
    const json run = json::parse(in);
    std::map<std::string, json> results;
    for (const json& s : run["scenarios"]) results[s["name"]] = s["result"];

    const json out = cost_json({dir.string(), "--gpus", "256,1024", "--usd-per-gpu-hour", "30"});
    ASSERT_FALSE(out["scenarios"].empty());
    for (const json& priced : out["scenarios"]) {
      const std::string name = priced["name"];
      SCOPED_TRACE(name);
      const json& r = results.at(name);
      const json& base = results.at(priced["baseline"]);
      const double step_s = r["wall_s"].get<double>() / r["steps_completed"].get<double>();
      const double base_s = base["wall_s"].get<double>() / base["steps_completed"].get<double>();
      const double idle_s = std::max(0.0, step_s - base_s) * 3600 / step_s;
      EXPECT_NEAR(priced["slowdown"].get<double>(), r["slowdown"].get<double>(), 1e-9);
      EXPECT_NEAR(priced["idle_s_per_gpu_hour"].get<double>(), idle_s, 1e-6);
      EXPECT_NEAR(priced["idle_usd_per_hour"]["1024"].get<double>(), idle_s / 3600 * 1024 * 30,
                  1e-6);
      EXPECT_NEAR(priced["idle_usd_per_hour"]["256"].get<double>(), idle_s / 3600 * 256 * 30, 1e-6);
      const auto has_longest = [](const json& result) {
        return result.contains("longest_step_ms") && result["longest_step_ms"].is_number();
      };
      // Every reference recording has a longest step (from run.json or, for
      // older ones, from metrics.jsonl): the stall is priced, never null.
      ASSERT_TRUE(priced["stall_ms"].is_number()) << priced.dump();
      const double stall_ms = priced["stall_ms"].get<double>();
      if (has_longest(r) && has_longest(base)) {
        EXPECT_NEAR(stall_ms,
                    std::max(0.0, r["longest_step_ms"].get<double>() -
                                      base["longest_step_ms"].get<double>()),
                    1e-6);
      }
      // The dollars are the stall's seconds x GPUs x price per GPU-second.
      EXPECT_NEAR(priced["stall_usd"]["1024"].get<double>(), stall_ms / 1000 * 1024 * 30 / 3600,
                  1e-6);
      EXPECT_NEAR(priced["stall_usd"]["256"].get<double>(), stall_ms / 1000 * 256 * 30 / 3600,
                  1e-6);
    }
  }
}

TEST(CostCommand, WhatIfsGiveTheCurriculumsFigures) {
  const json rca = cost_json({"--extra-ms", "28", "--steps-per-hour", "8000", "--gpus", "512"});
  EXPECT_DOUBLE_EQ(rca["idle_s_per_gpu_hour"].get<double>(), 224);
  const json stall = cost_json({"--stall-s", "10", "--gpus", "256,1024,4096"});
  EXPECT_NEAR(stall["stall_usd"]["1024"].get<double>(), 85.33, 0.01);
  EXPECT_DOUBLE_EQ(stall["clusters"][1]["usd_per_minute"].get<double>(), 512);
  EXPECT_DOUBLE_EQ(stall["clusters"][2]["usd_per_minute"].get<double>(), 2048);
  EXPECT_DOUBLE_EQ(stall["clusters"][0]["usd_per_hour"].get<double>(), 7680);
}

TEST(CostCommand, BadInputExitsTwoSayingWhatWasExpected) {
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  const std::string dir = fs::temp_directory_path() / "fabriclab-cost-nothing-here";
  const std::vector<Case> cases = {
      {{}, "nothing to price"},
      {{"--extra-ms", "28"}, "--extra-ms and --steps-per-hour go together"},
      {{"--stall-s", "10", "--gpus", "0"}, "--gpus: expected counts above 0"},
      {{"--stall-s", "10", "--usd-per-gpu-hour", "-1"}, "expected a price above 0"},
      {{dir + "/x"}, "not found (expected a run directory or a lab number)"},
      {{"99", "--runs", dir}, "no recording of lab 99 under " + dir},
  };
  for (const Case& c : cases) {
    std::vector<std::string> argv = {fabriclab::build_paths::fabriclab_binary(), "cost"};
    argv.insert(argv.end(), c.args.begin(), c.args.end());
    const auto result = run_command(argv);
    EXPECT_EQ(result.status.code, 2) << result.output;
    ASSERT_FALSE(c.says.empty());  // an empty string would be found in any output
    EXPECT_NE(result.output.find(c.says), std::string::npos) << result.output;
  }
  const auto recordings = reference_recordings();
  if (recordings.empty()) return;
  const auto unknown = run_command({fabriclab::build_paths::fabriclab_binary(), "cost",
                                    recordings[0].string(), "--scenario", "no-such"});
  EXPECT_EQ(unknown.status.code, 2);
  EXPECT_NE(unknown.output.find("the run has no scenario 'no-such' (expected one of: clean, "),
            std::string::npos)
      << unknown.output;
}

}  // namespace
}  // namespace fabriclab
