// `link_fault` end to end (lab.toml, labs/SCHEMA.md "A link fault"): the
// real binary, real namespaces with a switch, real ranks over Gloo, the
// userspace impairment backend. What the unit tests cannot see:
//   - the `at Ns` trigger: the link goes down no sooner than N s after the
//     job's first step (metrics.jsonl's ts; no upper bound: a shared CPU);
//   - SIGTERM while the link is down: the runner stops, sets the link up
//     again before the scenario ends (its link_up event, cut short) and
//     leaves no namespace, link or process;
//   - an impairment change (`impair '...' for D at ...`): changed in place
//     through the backend and restored to the scenario's own words, with
//     its events; and, stopped mid-change where the scenario has no
//     impairment of its own, restored (removed) before the scenario ends.
// The runner's terminal lines say when a change happened (metrics.jsonl is
// written when the scenario ends), so the tests wait on those.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/build_paths.h"
#include "tests/runner/lab_files.h"
#include "tests/runner/test_support.h"
#include "tests/support/child_process.h"

namespace fabriclab::runner {
namespace {

using namespace std::chrono_literals;
using fabriclab::testing::ChildProcess;
using nlohmann::json;
using testing::TempDir;
using testing::write_lab;

// Trains until stopped: every test ends its run with SIGTERM.
const char* const kLongTrainer =
    "model = \"mlp\"\nwidth = 64\nsteps = 100000\nbatch = 64\ntimeout_s = 60\n";

// Two ranks on a switch (a link fault's far end is the switch's port), one
// scenario with `lines` (its links, link_fault, impair).
std::string switch_lab(const std::string& lines) {
  return "kind = \"switch\"\n[[scenario]]\nname = \"fault\"\ncondition = \"fault\"\n"
         "deadline_s = 300\nstall_s = 120\n" + lines;
}

std::string wait_for_run_id(const std::set<std::string>& before, std::chrono::seconds limit) {
  const auto give_up = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < give_up) {
    for (const std::string& name : testing::run_netns_entries("fl-")) {
      if (before.count(name) == 0 && name.size() > 6 && name.substr(name.size() - 3) == "-r0")
        return name.substr(3, name.size() - 6);
    }
    std::this_thread::sleep_for(100ms);
  }
  return "";
}

bool wait_for_output(const ChildProcess& runner, const std::string& text, std::chrono::seconds limit) {
  const auto give_up = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < give_up) {
    if (runner.output().find(text) != std::string::npos) return true;
    std::this_thread::sleep_for(100ms);
  }
  return false;
}

// The scenario's events in the run's metrics.jsonl, in file order.
std::vector<json> events_of(const std::string& output_dir) {
  std::vector<json> events;
  std::error_code ignored;
  for (const auto& entry : std::filesystem::directory_iterator(output_dir, ignored)) {
    std::ifstream in(entry.path() / "metrics.jsonl");
    for (std::string line; std::getline(in, line);) {
      json event = json::parse(line, nullptr, false);
      if (event.is_object() && event.value("scenario", "") == "fault") events.push_back(event);
    }
    if (!events.empty()) break;
  }
  return events;
}

// The first event of `kind`, or null.
json first_of(const std::vector<json>& events, const std::string& kind) {
  for (const json& e : events)
    if (e.value("event", "") == kind) return e;
  return nullptr;
}

class LinkFaultRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SKIP_UNLESS_NETNS_PRIVILEGES();
    output_ = dir_.path() + "/runs";
    labs_ = dir_.path() + "/labs";
    netns_before_ = testing::run_netns_entries("fl-");
    links_before_ = testing::host_links();
  }

  // Starts `fabriclab run` on the lab, waits for `text` on its terminal,
  // sends SIGTERM and waits for it to exit; returns the scenario's events.
  std::vector<json> run_until(const std::string& text) {
    ChildProcess runner({fabriclab::build_paths::fabriclab_binary(), "run", "92", "--labs", labs_,
                         "--output", output_, "--backend", "userspace", "--no-charts"},
                        {}, dir_.path() + "/out.txt");
    run_id_ = wait_for_run_id(netns_before_, 60s);
    EXPECT_FALSE(run_id_.empty()) << runner.output();
    const bool seen = wait_for_output(runner, text, 180s);
    EXPECT_TRUE(seen) << "no \"" << text << "\" on the terminal\n" << runner.output();
    runner.signal(SIGTERM);
    const auto status = runner.wait(60s);
    EXPECT_TRUE(status.exited) << "the runner did not stop within 60 s\n" << runner.output();
    EXPECT_NE(runner.output().find("INTERRUPTED"), std::string::npos) << runner.output();
    output_text_ = runner.output();
    return events_of(output_);
  }

  // What a SIGTERM while the fault is in force must leave in the events:
  // the fault's `begin` event, its `end` event marked cut short, written
  // before the scenario ended as interrupted. Returns the end event (null
  // after a failure it has reported).
  json fault_cut_short(const std::vector<json>& events, const char* begin, const char* end) {
    const json began = first_of(events, begin);
    const json ended = first_of(events, end);
    const json scenario_end = first_of(events, "scenario_end");
    EXPECT_FALSE(began.is_null()) << "no " << begin << "\n" << output_text_;
    EXPECT_FALSE(ended.is_null()) << "the fault was not undone: no " << end << "\n" << output_text_;
    EXPECT_FALSE(scenario_end.is_null()) << output_text_;
    if (began.is_null() || ended.is_null() || scenario_end.is_null()) return nullptr;
    EXPECT_EQ(ended.value("cut_short", false), true) << ended.dump();
    EXPECT_LE(ended["ts"].get<double>(), scenario_end["ts"].get<double>())
        << "undone after the scenario ended";
    EXPECT_EQ(scenario_end["status"], "interrupted");
    return ended;
  }

  // Nothing of the run remains (processes take a moment to be reaped).
  void expect_nothing_left() {
    const auto give_up = std::chrono::steady_clock::now() + 10s;
    while (std::chrono::steady_clock::now() < give_up &&
           (!testing::run_netns_entries("fl-" + run_id_).empty() ||
            !testing::marked_processes(run_id_).empty()))
      std::this_thread::sleep_for(100ms);
    EXPECT_TRUE(testing::run_netns_entries("fl-" + run_id_).empty()) << "namespaces left behind";
    EXPECT_TRUE(testing::marked_processes(run_id_).empty()) << "processes left behind";
    EXPECT_TRUE(testing::new_netns_entries(netns_before_).empty());
    EXPECT_EQ(testing::host_links(), links_before_) << "host links changed";
  }

  TempDir dir_;
  std::string output_, labs_, run_id_, output_text_;
  std::set<std::string> netns_before_, links_before_;
};

TEST_F(LinkFaultRunTest, AtSecondsTheLinkGoesDownNoSoonerThanThatAfterTheFirstStep) {
  write_lab(labs_, kLongTrainer,
            switch_lab("links = [\"r1\"]\nlink_fault = \"down 500ms at 3s\"\n"));
  const std::vector<json> events = run_until("link up after");
  double first_step_ts = 0;
  for (const json& e : events)
    if (e.value("event", "") == "step" && (first_step_ts == 0 || e["ts"].get<double>() < first_step_ts))
      first_step_ts = e["ts"].get<double>();
  const json down = first_of(events, "link_down");
  ASSERT_GT(first_step_ts, 0) << output_text_;
  ASSERT_FALSE(down.is_null()) << output_text_;
  EXPECT_EQ(down["fault"], "down 500ms at 3000ms");
  EXPECT_GE(down["ts"].get<double>(), first_step_ts + 3.0)
      << "the link went down " << down["ts"].get<double>() - first_step_ts
      << " s after the first step";
  const json up = first_of(events, "link_up");
  ASSERT_FALSE(up.is_null()) << output_text_;
  EXPECT_GE(up["down_s"].get<double>(), 0.5);
  EXPECT_FALSE(up.contains("cut_short"));
  expect_nothing_left();
}

TEST_F(LinkFaultRunTest, SigtermWhileTheLinkIsDownSetsItUpAndLeavesNothing) {
  write_lab(labs_, kLongTrainer,
            switch_lab("links = [\"r1\"]\nlink_fault = \"down 60s at step 2\"\n"));
  const std::vector<json> events = run_until("link down after step");
  const json up = fault_cut_short(events, "link_down", "link_up");
  ASSERT_FALSE(up.is_null());
  EXPECT_LT(up["down_s"].get<double>(), 60.0);
  EXPECT_FALSE(first_of(events, "tcp_backoff").is_null());
  expect_nothing_left();
}

TEST_F(LinkFaultRunTest, AnImpairmentChangeIsAppliedAndTheScenariosOwnRestored) {
  write_lab(labs_, kLongTrainer,
            switch_lab("links = [\"r1\"]\nimpair = \"delay 1ms\"\n"
                       "link_fault = \"impair 'loss 100%' for 1s at step 2\"\n"));
  const std::vector<json> events = run_until("impairment restored after");
  const json change = first_of(events, "impair_change");
  const json restore = first_of(events, "impair_restore");
  ASSERT_FALSE(change.is_null()) << output_text_;
  ASSERT_FALSE(restore.is_null()) << output_text_;
  EXPECT_EQ(change["spec"], "loss 100%");
  EXPECT_EQ(change["restore"], "delay 1ms");
  EXPECT_EQ(change["links"], json::array({"r1"}));
  EXPECT_GE(change["steps_done"].get<int>(), 2);
  EXPECT_EQ(restore["spec"], "delay 1ms");
  EXPECT_GE(restore["changed_s"].get<double>(), 1.0);
  EXPECT_FALSE(restore.contains("cut_short"));
  EXPECT_LE(change["ts"].get<double>(), restore["ts"].get<double>());
  expect_nothing_left();
}

TEST_F(LinkFaultRunTest, SigtermMidChangeRemovesTheFaultsImpairmentAndLeavesNothing) {
  write_lab(labs_, kLongTrainer,
            switch_lab("links = [\"r1\"]\nlink_fault = \"impair 'delay 200ms' for 60s at step 2\"\n"));
  const std::vector<json> events = run_until("impairment changed to");
  const json restore = fault_cut_short(events, "impair_change", "impair_restore");
  ASSERT_FALSE(restore.is_null());
  EXPECT_EQ(first_of(events, "impair_change")["restore"], "")
      << "the scenario has no impairment of its own";
  EXPECT_EQ(restore["spec"], "");
  expect_nothing_left();
}

}  // namespace
}  // namespace fabriclab::runner
