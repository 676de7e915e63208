// The one reader: the rules every caller shares, damage in metrics.jsonl
// kept as problems, and the reference recordings read clean. The report's
// strict use of it is tested in tests/runner/report/run_directory_test.cc.
#include "runner/rundir/run_reader.h"
#include "common/build_paths.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include "common/input_error.h"
#include "runner/rundir/json_line.h"
#include "tests/runner/test_support.h"
#include "common/temp_dir.h"

namespace fabriclab::runner::rundir {
namespace {

void write_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path) << text;
}

using runner::testing::error_of;

constexpr char kManifest[] =
    R"({"format":"fabriclab-run","version":1,"lab":{"id":"02"},)"
    R"("scenarios":[{"name":"clean","status":"completed","steps_planned":2},)"
    R"({"name":"loss","status":"stalled","message":"why"},{"name":"later"}]})";

TEST(RunReader, DamagedMetricsLinesBecomeProblemsAndTheRestIsKept) {
  TempDir dir("rundir-read");
  write_text(dir.path() / "run.json", kManifest);
  write_text(dir.path() / "metrics.jsonl",
             "{\"v\":1,\"event\":\"scenario_start\",\"scenario\":\"clean\",\"ts\":1}\n"
             "{\"v\":1,\"event\":\"step\",\"scenario\":\"clean\",\"rank\":0,\"ts\":2}\n"
             "\n"
             "{\"v\":7,\"event\":\"eval\",\"scenario\":\"loss\",\"accuracy\":0.5}\n"
             "{\"v\":1,\"event\":\"run_note\"}\n"
             "{\"v\":1,\"event\":\"scenario_end\",\"scenario\":\"loss\",\"status\":\"odd\"}\n"
             "{\"v\":1,\"event\":\"scenario_end\",\"scenario\":\"loss\",\"status\":\"stalled\"}\n"
             "{\"v\":1,\"event\":\"step\",\"scen");
  const RunDirectory run = read_run(dir.path());

  ASSERT_EQ(run.problems.size(), 4u);
  EXPECT_EQ(run.problems[0].line, 2);
  EXPECT_EQ(run.problems[0].scenario, "clean");
  EXPECT_EQ(describe(run.problems[0]),
            "metrics.jsonl:2: step event: field 'step': expected a number, it is missing");
  EXPECT_EQ(run.problems[1].message,
            "metrics version 7 is not one fabriclab knows (expected 1 to 2)");
  EXPECT_EQ(run.problems[2].line, 6);
  EXPECT_NE(run.problems[2].message.find("unknown status \"odd\""), std::string::npos);
  EXPECT_EQ(run.problems[3].line, 8);
  EXPECT_EQ(run.problems[3].message.rfind("not valid JSON: column ", 0), 0u) << run.problems[3].message;

  // Well-formed lines: in `metrics` with their lines, grouped by scenario.
  ASSERT_EQ(run.metrics.size(), 3u);
  EXPECT_EQ(run.metrics[1].line, 5);  // the run-level event
  EXPECT_EQ(run.events.at("clean").size(), 1u);
  EXPECT_EQ(run.events.at("loss").size(), 1u);
  EXPECT_TRUE(run.events.at("later").empty());
  EXPECT_EQ(run.scenario_names, (std::vector<std::string>{"clean", "loss", "later"}));
}

// Found by tests/fuzz/fuzz_recording: a number beyond a double is nlohmann's
// out_of_range, not its parse_error; both are damage, never an escape.
TEST(RunReader, ANumberBeyondADoubleIsDamageNotACrash) {
  const MetricsLines lines = parse_metrics("{\"v\":1,\"event\":\"step\",\"ts\":3E672478}\n");
  ASSERT_EQ(lines.problems.size(), 1u);
  EXPECT_EQ(lines.problems[0].message, "not valid JSON: number overflow parsing '3E672478'");
  EXPECT_EQ(error_of([] { parse_run_manifest("{\"format\":\"fabriclab-run\",\n\"seed\":1e999}", "r.json"); }),
            "r.json:2: not valid JSON: number overflow parsing '1e999'");
}

TEST(RunReader, ScenariosOfTheManifestAreTyped) {
  TempDir dir("rundir-scenarios");
  write_text(dir.path() / "run.json", kManifest);
  write_text(dir.path() / "metrics.jsonl", "");
  const RunDirectory run = read_run(dir.path());
  ASSERT_EQ(run.scenarios.size(), 3u);
  EXPECT_EQ(run.scenarios[0].status, ScenarioStatus::kCompleted);
  EXPECT_EQ(run.scenarios[0].steps_planned, 2);
  EXPECT_EQ(run.scenario("loss")->status, ScenarioStatus::kStalled);
  EXPECT_EQ(run.scenario("loss")->message, "why");
  EXPECT_FALSE(run.scenario("later")->status);
  EXPECT_TRUE(run.scenario("later")->result.is_null());
  EXPECT_EQ(run.scenario("nope"), nullptr);
}

TEST(RunReader, ManifestDamageThrowsWithItsLine) {
  EXPECT_EQ(error_of([] {
              parse_run_manifest(R"({"scenarios":[{"name":"a","status":"done"}]})", "r.json");
            }),
            "r.json:1: scenario 'a': field 'status': unknown status \"done\" (expected "
            "completed, stalled, deadline, failed, interrupted or skipped)");
  EXPECT_EQ(
      error_of([] { parse_run_manifest(R"({"version":2})", "r.json"); }),
      "r.json:1: field 'version': run.json version 2 is not one fabriclab knows (expected 1)");
  EXPECT_EQ(error_of([] {
              parse_run_manifest(R"({"scenarios":[{"name":""}]})", "r.json");
            }).rfind("r.json:1: field 'scenarios': every entry needs a string 'name'", 0),
            0u);
}

// run.json is written indented: a damaged field is named with its own line.
TEST(RunReader, ManifestDamageNamesTheLineOfTheField) {
  const std::string text =
      "{\n  \"format\": \"fabriclab-run\",\n  \"scenarios\": [\n    {\n      \"name\": \"a\",\n"
      "      \"status\": \"completed\"\n    },\n    {\n      \"baseline\": 3,\n"
      "      \"name\": \"b\",\n      \"status\": \"done\"\n    },\n    {\"nom\": \"c\"}\n  ]\n}\n";
  EXPECT_EQ(error_of([&] { parse_run_manifest(text, "r.json"); }).substr(0, 46),
            "r.json:11: scenario 'b': field 'status': unkno");
  std::string fixed = text;
  fixed.replace(fixed.find("\"done\""), 6, "\"failed\"");
  EXPECT_EQ(error_of([&] { parse_run_manifest(fixed, "r.json"); }).substr(0, 50),
            "r.json:9: scenario 'b': field 'baseline': expected");
  fixed.replace(fixed.find("\"baseline\": 3"), 13, "\"baseline\": \"a\"");
  EXPECT_EQ(error_of([&] { parse_run_manifest(fixed, "r.json"); }).substr(0, 45),
            "r.json:13: field 'scenarios': every entry nee");
  EXPECT_EQ(json_line_of(text, {"format"}), 2);
  EXPECT_EQ(json_line_of(text, {"scenarios", "1", "name"}), 10);
  EXPECT_EQ(json_line_of(text, {"scenarios", "7"}), 3) << "a missing member: its parent's line";
  EXPECT_EQ(json_line_of("[1, \"x\\\"]\n\", {\"k\": 2}]", {"2"}), 2) << "past an escaped quote";
  EXPECT_EQ(error_of([] { parse_run_manifest("{\n\"x\": 1e400}", "r.json"); }).substr(0, 25),
            "r.json:2: not valid JSON:");
}

TEST(RunReader, ReferenceRecordingsReadWithoutProblems) {
  for (const char* name : {"01-training-loop", "02-dropped-packet", "04-allreduce-bandwidth"}) {
    const RunDirectory run =
        read_run(std::string(fabriclab::build_paths::source_dir()) + "/recordings/" + name);
    EXPECT_TRUE(run.problems.empty()) << name << ": " << describe(run.problems.front());
    EXPECT_FALSE(run.scenarios.empty()) << name;
    for (const RecordedScenario& s : run.scenarios) EXPECT_TRUE(s.status) << name << " " << s.name;
  }
}

}  // namespace
}  // namespace fabriclab::runner::rundir
