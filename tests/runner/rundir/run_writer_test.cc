// The one writer: what it writes, the reader reads back.
#include "runner/rundir/run_writer.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "common/temp_dir.h"
#include "runner/rundir/run_reader.h"

namespace fabriclab::runner::rundir {
namespace {

TEST(RunWriter, WhatItWritesTheReaderReadsBack) {
  TempDir tmp("rundir-write");
  const std::string dir = (tmp.path() / "02-x" / "run").string();
  {
    RunWriter out(dir);
    EXPECT_EQ(out.session_cast_path(), dir + "/session.cast");
    out.manifest()["lab"] = {{"id", "02"}};
    out.append_events({{{"v", 1}, {"event", "scenario_start"}, {"scenario", "loss"}, {"ts", 1.0}},
                       {{"v", 1},
                        {"event", "scenario_end"},
                        {"scenario", "loss"},
                        {"ts", 2.0},
                        {"status", ScenarioStatus::kDeadline}}});
    ScenarioEntry entry;
    entry.name = "loss";
    entry.condition = "+10% loss";
    entry.links = {"all"};
    entry.spec = "loss 10%";
    entry.applied = {"netem on r0/eth0: loss 10%"};
    entry.status = ScenarioStatus::kDeadline;
    entry.message = "still running";
    entry.steps_planned = 80;
    entry.steps_completed = 41;
    out.add_scenario(entry);
    out.close_metrics();
    out.write_manifest();
  }
  EXPECT_FALSE(std::filesystem::exists(dir + "/run.json.tmp"));
  const RunDirectory run = read_run(dir);
  EXPECT_TRUE(run.problems.empty());
  EXPECT_EQ(run.manifest["format"], "fabriclab-run");
  EXPECT_EQ(run.manifest["version"], 1);
  EXPECT_EQ(run.manifest["lab"]["id"], "02");
  ASSERT_EQ(run.scenarios.size(), 1u);
  EXPECT_EQ(run.scenarios[0].status, ScenarioStatus::kDeadline);
  EXPECT_EQ(run.scenarios[0].message, "still running");
  EXPECT_EQ(run.scenarios[0].steps_completed, 41);
  EXPECT_EQ(run.manifest["scenarios"][0]["status"], "deadline");
  EXPECT_EQ(run.manifest["scenarios"][0]["impairments"][0]["spec"], "loss 10%");
  ASSERT_EQ(run.events.at("loss").size(), 2u);
  EXPECT_EQ(run.events.at("loss")[1]["status"], "deadline");
}

}  // namespace
}  // namespace fabriclab::runner::rundir
