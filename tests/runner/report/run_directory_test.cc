// Reading run directories: grouping by scenario, and errors that name the
// file and line.
#include "runner/report/run_directory.h"

#include <gtest/gtest.h>

#include <functional>

#include "common/input_error.h"
#include "tests/runner/test_support.h"
#include "report_fixture.h"

namespace fabriclab::runner::report {
namespace {

using runner::testing::error_of;

TEST(RunDirectory, GroupsEventsByScenarioInManifestOrder) {
  testing::TempDir dir("read");
  testing::write_lab02_run(dir.path());
  const RunDirectory run = read_run_directory(dir.path());
  EXPECT_EQ(run.scenario_names, (std::vector<std::string>{"clean", "latency", "loss", "both"}));
  // clean: scenario_start, 2 starts, 160 steps, eval, counters, scenario_end.
  EXPECT_EQ(run.events.at("clean").size(), 166u);
  EXPECT_EQ(run.events.at("both").front()["event"], "scenario_start");
  EXPECT_EQ(run.manifest["lab"]["id"], "02");
}

TEST(RunDirectory, ScenarioOnlyInMetricsIsAppendedAndRunLevelEventsIgnored) {
  testing::TempDir dir("extra");
  testing::write_text(dir.path() / "run.json",
                      R"({"format":"fabriclab-run","version":1,"scenarios":[{"name":"clean"}]})");
  testing::write_text(dir.path() / "metrics.jsonl",
                      "{\"event\":\"run_note\"}\n\n"
                      "{\"event\":\"scenario_start\",\"scenario\":\"extra\",\"ts\":1}\n");
  const RunDirectory run = read_run_directory(dir.path());
  EXPECT_EQ(run.scenario_names, (std::vector<std::string>{"clean", "extra"}));
  EXPECT_TRUE(run.events.at("clean").empty());
  EXPECT_EQ(run.events.at("extra").size(), 1u);
}

TEST(RunDirectory, MalformedMetricsLineNamesFileAndLine) {
  testing::TempDir dir("malformed");
  testing::write_lab02_run(dir.path());
  testing::write_text(dir.path() / "metrics.jsonl",
                      "{\"event\":\"scenario_start\",\"scenario\":\"clean\",\"ts\":1}\n"
                      "\n"
                      "{\"event\":\"step\",\"scenario\":\"clean\",\"rank\":0,\n");
  const std::string message = error_of([&] { read_run_directory(dir.path()); });
  EXPECT_NE(message.find((dir.path() / "metrics.jsonl").string() + ":3: not valid JSON"),
            std::string::npos)
      << message;
}

TEST(RunDirectory, StepWithoutStepMsNamesFileLineAndField) {
  const std::string message = error_of([] {
    parse_metrics_lines(
        "{\"event\":\"start\",\"rank\":0}\n"
        "{\"event\":\"step\",\"rank\":0,\"step\":1,\"ts\":2.0,\"loss\":1,\"comm_ms\":1}\n",
        "m.jsonl");
  });
  EXPECT_EQ(message, "m.jsonl:2: step event: field 'step_ms': expected a number, it is missing");
}

TEST(RunDirectory, NonObjectLineAndMissingEventAreErrors) {
  EXPECT_EQ(error_of([] { parse_metrics_lines("[1,2]\n", "m"); }),
            "m:1: expected a JSON object per line");
  EXPECT_EQ(error_of([] { parse_metrics_lines("{}\n{\"v\":1}\n", "m"); }),
            "m:1: field 'event': expected a string");
}

TEST(RunDirectory, MissingFilesSayWhatWasExpected) {
  testing::TempDir dir("missing");
  std::string message = error_of([&] { read_run_directory(dir.path()); });
  EXPECT_NE(message.find("run.json: not found"), std::string::npos) << message;
  EXPECT_NE(message.find("fabriclab run directory"), std::string::npos) << message;

  testing::write_text(dir.path() / "run.json", R"({"scenarios":[]})");
  message = error_of([&] { read_run_directory(dir.path()); });
  EXPECT_NE(message.find("metrics.jsonl: not found"), std::string::npos) << message;

  message = error_of([&] { read_run_directory(dir.path() / "nope"); });
  EXPECT_NE(message.find("not a directory"), std::string::npos) << message;
}

TEST(RunDirectory, MalformedManifestNamesItsLine) {
  const std::string message = error_of(
      [] { parse_run_manifest("{\n  \"lab\": {\"id\": \"02\"},\n  oops\n}\n", "r.json"); });
  EXPECT_EQ(message.rfind("r.json:3: not valid JSON", 0), 0u) << message;
  EXPECT_EQ(error_of([] {
              parse_run_manifest(R"({"scenarios":[{"nam":"x"}]})", "r.json");
            }).rfind("r.json:1: field 'scenarios'", 0),
            0u);
}

}  // namespace
}  // namespace fabriclab::runner::report
