// `fabriclab run` end to end, as a student runs it: the real binary, real
// namespaces, real ranks over Gloo, the userspace impairment backend. A
// reduced lab 02 must show its shape (clean fastest, latency and loss slower,
// a stuck scenario reported STALLED before its deadline); a bad lab file must
// fail before anything is created; and every way a run can end -- Ctrl-C,
// SIGTERM, a rank killed, the runner SIGKILLed and then `fabriclab cleanup` --
// must leave no namespace, link, rule or process of the run behind.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <thread>

#include "common/build_paths.h"
#include "tests/runner/lab_files.h"
#include "tests/runner/test_support.h"
#include "tests/support/child_process.h"
#include "tests/support/ci_skip.h"
#include "tests/support/kernel_features.h"

namespace fabriclab::runner {
namespace {

using namespace std::chrono_literals;
using fabriclab::testing::ChildProcess;
using fabriclab::testing::run_command;
using testing::read_run_json;
using testing::scenario;
using testing::scenario_in;
using testing::TempDir;
using testing::wait_for_training;
using testing::write_lab;

// Small and quick: a 50k-parameter MLP on Fashion-MNIST.
const char* const kSmallTrainer = "model = \"mlp\"\nwidth = 64\nsteps = 15\nbatch = 64\ntimeout_s = 60\n";
// Long enough to be interrupted while it trains.
const char* const kLongTrainer = "model = \"mlp\"\nwidth = 64\nsteps = 100000\nbatch = 64\ntimeout_s = 60\n";

// What a run may leave on the host: its namespaces (hence its links, rules
// and qdiscs, which live in them), its processes, new host links.
struct HostState {
  std::set<std::string> netns = testing::run_netns_entries("fl-");
  std::set<std::string> links = testing::host_links();
};

// The run id of the run in progress, read off its namespaces' names.
std::string wait_for_run_id(const HostState& before, std::chrono::seconds limit) {
  const auto give_up = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < give_up) {
    for (const std::string& name : testing::run_netns_entries("fl-")) {
      if (before.netns.count(name) == 0 && name.size() > 6 && name.substr(name.size() - 3) == "-r0")
        return name.substr(3, name.size() - 6);
    }
    std::this_thread::sleep_for(100ms);
  }
  return "";
}

// Nothing of `run_id` remains, within `grace` (processes take a moment to be reaped).
void expect_nothing_left(const HostState& before, const std::string& run_id,
                         std::chrono::seconds grace = 5s) {
  const auto give_up = std::chrono::steady_clock::now() + grace;
  while (std::chrono::steady_clock::now() < give_up &&
         (!testing::run_netns_entries("fl-" + run_id).empty() ||
          !testing::marked_processes(run_id).empty()))
    std::this_thread::sleep_for(100ms);
  EXPECT_TRUE(testing::run_netns_entries("fl-" + run_id).empty()) << "namespaces left behind";
  EXPECT_TRUE(testing::marked_processes(run_id).empty()) << "processes left behind";
  EXPECT_TRUE(testing::new_netns_entries(before.netns).empty());
  EXPECT_EQ(testing::host_links(), before.links) << "host links changed";
}

// The events of `scenario` in the (first) run directory under `output_dir`.
std::vector<nlohmann::json> events_of(const std::string& output_dir, const std::string& scenario) {
  std::vector<nlohmann::json> events;
  std::error_code ignored;
  for (const auto& entry : std::filesystem::directory_iterator(output_dir, ignored)) {
    std::ifstream in(entry.path() / "metrics.jsonl");
    for (std::string line; std::getline(in, line);) {
      auto event = nlohmann::json::parse(line, nullptr, false);
      if (event.is_object() && event.value("scenario", "") == scenario) events.push_back(event);
    }
    if (!events.empty()) break;
  }
  return events;
}

class RunCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SKIP_UNLESS_NETNS_PRIVILEGES();
    output_ = dir_.path() + "/runs";
    labs_ = dir_.path() + "/labs";
  }

  std::vector<std::string> run_argv(std::vector<std::string> extra = {}) const {
    std::vector<std::string> argv = {fabriclab::build_paths::fabriclab_binary(),
                                     "run",
                                     "92",
                                     "--labs",
                                     labs_,
                                     "--output",
                                     output_,
                                     "--backend",
                                     "userspace",
                                     "--no-charts"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return argv;
  }

  void kill_while_training_then_clean_up(size_t namespaces, const std::string& named);
  // Starts `runner` on the reduced spine-fail lab and waits until its fault
  // is in force (tor0's route to rack 2 through spine1 only): the run's id,
  // or "" after a failure it has reported.
  std::string run_until_uplink_fault(std::unique_ptr<ChildProcess>& runner, const HostState& before);

  TempDir dir_;
  std::string output_, labs_;
};

TEST_F(RunCommandTest, ReducedLab02HoldsItsDelayAndAStuckScenarioIsStalled) {
  write_lab(labs_, kSmallTrainer,
            scenario("clean", "", 60, 20) + scenario("latency", "delay 20ms", 60, 20) +
                scenario("loss", "loss 10%", 60, 30) +
                // Nothing gets through: the ranks cannot even rendezvous.
                scenario("stuck", "loss 100%", 40, 8));
  HostState before;
  auto r = run_command(run_argv(), {}, 240s);
  ASSERT_TRUE(r.status.exited) << r.output;
  EXPECT_EQ(r.status.code, 0) << r.output;  // a stall is a result, not a failure
  const nlohmann::json run = read_run_json(output_);
  ASSERT_FALSE(run.is_null()) << r.output;
  EXPECT_EQ(run["backend"], "userspace");

  const auto& clean = scenario_in(run, "clean");
  const auto& latency = scenario_in(run, "latency");
  const auto& loss = scenario_in(run, "loss");
  const auto& stuck = scenario_in(run, "stuck");
  ASSERT_EQ(clean["status"], "completed") << r.output;
  ASSERT_EQ(latency["status"], "completed") << r.output;
  EXPECT_GE(latency["result"]["wall_s"].get<double>(), testing::least_wall_s(15, 0.020))
      << r.output;
  // Loss may complete or stall; completed, it dropped packets.
  if (loss["status"] == "completed") {
    EXPECT_GT(loss["result"]["drops"].get<double>(), 0) << r.output;
  } else {
    EXPECT_EQ(loss["status"], "stalled") << r.output;
  }
  // Stalled, not "deadline": the watchdog checks the stall first, so this
  // holds however late a loaded machine polled (Watchdog's own test).
  EXPECT_EQ(stuck["status"], "stalled") << r.output;
  EXPECT_NE(r.output.find("STALLED"), std::string::npos) << r.output;

  // What the lab network ran with, read back from both rank namespaces.
  EXPECT_NE(r.output.find("network (read back from the rank namespaces)"), std::string::npos)
      << r.output;
  ASSERT_EQ(run["network"]["namespaces"].size(), 2u) << run["network"].dump();
  EXPECT_EQ(run["network"]["backend"], "userspace");
  for (const auto& ns : run["network"]["namespaces"]) {
    EXPECT_EQ(ns["mtu"], 1500) << ns.dump();
    EXPECT_TRUE(ns["sysctls"]["net.ipv4.tcp_slow_start_after_idle"].is_string()) << ns.dump();
  }
  // Clean: the measured bytes are the ring's payload (with 2 ranks, `bytes`
  // each way) plus headers, and the link is read once, at rank 0. Summed over
  // the steps: a step's last chunk can still be in the socket's send queue
  // when its allreduce returns, and then reaches the wire in the next step's
  // interval (the last step's, after the run: at most one step's bytes).
  const auto events = events_of(output_, "clean");
  nlohmann::json last_counters;
  int steps = 0;
  double tx_bytes = 0, payload = 0, step_payload = 0;
  for (const auto& e : events) {
    if (e["event"] == "counters") last_counters = e;
    if (e["event"] != "step") continue;
    ++steps;
    ASSERT_TRUE(e.contains("tx_bytes")) << e.dump();
    tx_bytes += e["tx_bytes"].get<double>();
    step_payload = e["bytes"].get<double>();
    payload += step_payload;
  }
  EXPECT_GT(steps, 0);
  EXPECT_GE(tx_bytes, payload - step_payload) << steps << " steps";
  EXPECT_LT(tx_bytes, 1.5 * payload) << steps << " steps";
  const auto& link = last_counters["links"]["r0-r1"];
  EXPECT_NE(link["end"].get<std::string>().find("-r0/eth0"), std::string::npos)
      << last_counters.dump();
  EXPECT_EQ(last_counters["link_bytes"],
            link["tx_bytes"].get<uint64_t>() + link["rx_bytes"].get<uint64_t>());
  expect_nothing_left(before, run["run_id"]);
}

// `run all` over a folder of two labs: each runs as `run NN` would, in
// number order, and the course ends with one table naming both, how each
// ended and its run directory; nothing is left behind.
TEST_F(RunCommandTest, RunAllRunsEveryLabInOrderThenOneTable) {
  write_lab(labs_, kSmallTrainer, scenario("clean", "", 60, 20));
  const std::string second = labs_ + "/93-second";
  std::filesystem::create_directories(second);
  std::ofstream(second + "/lab.toml")
      << "[lab]\nid = \"93\"\ntitle = \"second\"\nsummary = \"second\"\n[trainer]\n"
      << kSmallTrainer << "\n[topology]\nranks = 2\n"
      << scenario("delayed", "delay 5ms", 60, 20);
  HostState before;
  std::vector<std::string> argv = run_argv();
  argv[2] = "all";
  auto r = run_command(argv, {}, 240s);
  EXPECT_EQ(r.status.code, 0) << r.output;
  const size_t first = r.output.find("[lab 1 of 2] fabriclab run 92");
  const size_t then = r.output.find("[lab 2 of 2] fabriclab run 93");
  ASSERT_NE(first, std::string::npos) << r.output;
  ASSERT_NE(then, std::string::npos) << r.output;
  EXPECT_LT(first, then);
  const size_t table = r.output.find("== The course on this machine ==");
  ASSERT_NE(table, std::string::npos) << r.output;
  EXPECT_GT(table, then);
  const std::string summary = r.output.substr(table);
  EXPECT_NE(summary.find("92   test"), std::string::npos) << summary;
  EXPECT_NE(summary.find("93   second"), std::string::npos) << summary;
  EXPECT_NE(summary.find("2 labs in"), std::string::npos) << summary;
  EXPECT_EQ(summary.find("FAILED"), std::string::npos) << summary;
  int run_dirs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(output_)) {
    EXPECT_TRUE(std::filesystem::exists(entry.path() / "run.json")) << entry.path();
    EXPECT_NE(summary.find(entry.path().string()), std::string::npos)
        << entry.path() << " is not in the table:\n" << summary;
    ++run_dirs;
  }
  EXPECT_EQ(run_dirs, 2);
  EXPECT_TRUE(testing::new_netns_entries(before.netns).empty());
  EXPECT_EQ(testing::host_links(), before.links);
}

TEST_F(RunCommandTest, BadLabFileIsAFileLineErrorAndCreatesNothing) {
  const std::string folder = write_lab(labs_, kSmallTrainer, scenario("clean", "", 60, 20));
  // A scenario whose impairment is not netem's words.
  std::ofstream(folder + "/lab.toml", std::ios::app)
      << "[[scenario]]\nname = \"bad\"\ncondition = \"bad\"\nimpair = \"delay fast\"\n";
  HostState before;
  auto r = run_command(run_argv(), {}, 60s);
  EXPECT_EQ(r.status.code, 2) << r.output;
  EXPECT_NE(r.output.find("lab.toml:"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("fast"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(output_)) << "a run directory was created";
  EXPECT_TRUE(testing::new_netns_entries(before.netns).empty());
  EXPECT_EQ(testing::host_links(), before.links);
}

// Lab 08's words: a queue whose thresholds are upside down, and a neighbour
// flow to a rank the lab does not have. Exit 2 naming the line and the word;
// no namespace, link or switch table is made.
TEST_F(RunCommandTest, BadQueueAndNeighbourWordsAreFileLineErrorsAndApplyNothing) {
  for (const std::string& bad :
       {std::string("queue = \"rate 100mbit limit 64kb ecn kmin 40kb kmax 10kb\"\nlinks = [\"r0\"]\n"),
        std::string("neighbours = [\"noisy r7->r0\"]\n")}) {
    const std::string folder = write_lab(labs_, kSmallTrainer, scenario("clean", "", 60, 20));
    std::ofstream(folder + "/lab.toml", std::ios::app)
        << "[[scenario]]\nname = \"bad\"\ncondition = \"bad\"\n" << bad;
    HostState before;
    auto r = run_command(run_argv(), {}, 60s);
    EXPECT_EQ(r.status.code, 2) << r.output;
    EXPECT_NE(r.output.find("lab.toml:"), std::string::npos) << r.output;
    EXPECT_TRUE(r.output.find("kmax") != std::string::npos ||
                r.output.find("r0 to r1") != std::string::npos)
        << r.output;
    EXPECT_FALSE(std::filesystem::exists(output_)) << "a run directory was created";
    EXPECT_TRUE(testing::new_netns_entries(before.netns).empty());
    EXPECT_EQ(testing::host_links(), before.links);
    EXPECT_EQ(
        run_command({"/bin/sh", "-c", "nft list tables | grep -c fabriclab_switch || true"}, {}, 10s)
            .output,
        "0\n");
  }
}

class RunSignalTest : public RunCommandTest, public ::testing::WithParamInterface<int> {};

TEST_P(RunSignalTest, StopsAndLeavesNothing) {
  write_lab(labs_, kLongTrainer, scenario("clean", "", 120, 30) + scenario("latency", "delay 5ms", 120, 30));
  HostState before;
  ChildProcess runner(run_argv(), {}, dir_.path() + "/out.txt");
  const std::string run_id = wait_for_run_id(before, 30s);
  ASSERT_FALSE(run_id.empty()) << runner.output();
  ASSERT_TRUE(wait_for_training(output_, 60s)) << runner.output();
  runner.signal(GetParam());
  auto status = runner.wait(30s);
  ASSERT_TRUE(status.exited) << "the runner did not stop within 30 s\n" << runner.output();
  EXPECT_NE(status.code, 0) << runner.output();
  EXPECT_NE(runner.output().find("INTERRUPTED"), std::string::npos) << runner.output();
  const nlohmann::json run = read_run_json(output_);
  ASSERT_FALSE(run.is_null()) << "no run.json after an interrupt\n" << runner.output();
  EXPECT_EQ(scenario_in(run, "clean")["status"], "interrupted");
  EXPECT_EQ(run["scenarios"].size(), 1u) << "the next scenario started after the signal";
  expect_nothing_left(before, run_id);
}

INSTANTIATE_TEST_SUITE_P(Signals, RunSignalTest, ::testing::Values(SIGINT, SIGTERM),
                         [](const auto& info) { return info.param == SIGINT ? "SIGINT" : "SIGTERM"; });

// Lab 09's spine-fail, reduced: a fabric uplink (tor0-spine0) fails 60 s
// while the job trains, its routes withdrawn 300 ms later.
void write_uplink_fault_lab(const std::string& labs) {
  std::filesystem::create_directories(labs + "/92-test");
  std::ofstream(labs + "/92-test/lab.toml")
      << "[lab]\nid = \"92\"\ntitle = \"test\"\nsummary = \"test\"\n[trainer]\n" << kLongTrainer
      << "[topology]\nranks = 4\nkind = \"leaf_spine\"\n"
         "[[scenario]]\nname = \"spine-fail\"\ncondition = \"spine-fail\"\n"
         "placement = [\"r0\", \"r2\"]\nlinks = [\"tor0-spine0\"]\n"
         "link_fault = \"down 60s at step 2 detect 300ms\"\ndeadline_s = 120\nstall_s = 60\n";
}

// Runs `command` (through /bin/sh) in the run's namespace `node`: its output.
std::string in_netns(const std::string& run_id, const std::string& node, const std::string& command) {
  return run_command({"/bin/sh", "-c", "ip netns exec fl-" + run_id + "-" + node + " " + command},
                     {}, 10s)
      .output;
}

// Waits until the uplink fault is in force in the running lab: tor0's route
// to rack 2 goes through spine1 only (read with iproute2). Returns that
// route (or what `ip` said last).
std::string wait_for_withdrawn_route(const std::string& run_id, std::chrono::seconds limit) {
  std::string route;
  for (auto give_up = std::chrono::steady_clock::now() + limit;
       std::chrono::steady_clock::now() < give_up; std::this_thread::sleep_for(200ms)) {
    route = in_netns(run_id, "tor0", "ip route show 10.77.2.0/24");
    // Only the surviving next hop (not an error: the ToR's namespace may
    // not exist yet when the run's first one does).
    if (route.find("to-spine1") != std::string::npos && route.find("to-spine0") == std::string::npos)
      break;
  }
  return route;
}

std::string RunCommandTest::run_until_uplink_fault(std::unique_ptr<ChildProcess>& runner,
                                                   const HostState& before) {
  write_uplink_fault_lab(labs_);
  runner = std::make_unique<ChildProcess>(run_argv(), std::map<std::string, std::string>{},
                                          dir_.path() + "/out.txt");
  const std::string run_id = wait_for_run_id(before, 30s);
  if (run_id.empty()) {
    ADD_FAILURE() << "no run started\n" << runner->output();
    return "";
  }
  const std::string route = wait_for_withdrawn_route(run_id, 90s);
  if (route.find("to-spine0") != std::string::npos || route.find("to-spine1") == std::string::npos) {
    ADD_FAILURE() << "tor0's route is not spine1's alone: " << route << runner->output();
    return "";
  }
  return run_id;
}

// Once detected, the ToR's ECMP route to the other rack has lost the failed
// spine; SIGTERM mid-fault sets the port up and the routes back before the
// run ends (its events say so, cut short), and nothing of the run is left.
TEST_F(RunCommandTest, SigtermDuringAnUplinkFaultSetsItBackAndLeavesNothing) {
  HostState before;
  std::unique_ptr<ChildProcess> started;
  const std::string run_id = run_until_uplink_fault(started, before);
  ASSERT_FALSE(run_id.empty());
  ChildProcess& runner = *started;
  runner.signal(SIGTERM);
  auto status = runner.wait(30s);
  ASSERT_TRUE(status.exited) << "the runner did not stop within 30 s\n" << runner.output();
  std::map<std::string, nlohmann::json> seen;
  for (const nlohmann::json& e : events_of(output_, "spine-fail"))
    if (e.contains("event") && e["event"].is_string()) seen[e["event"].get<std::string>()] = e;
  for (const char* kind : {"link_down", "route_withdrawn", "link_up", "route_restored",
                           "uplink_phases"})
    EXPECT_TRUE(seen.count(kind)) << kind << " missing\n" << runner.output();
  const auto cut_short = [&](const char* kind) {
    return seen.count(kind) && seen[kind].is_object() && seen[kind].value("cut_short", false);
  };
  EXPECT_TRUE(cut_short("link_up")) << seen["link_up"].dump();
  EXPECT_TRUE(cut_short("route_restored")) << seen["route_restored"].dump();
  EXPECT_NE(seen["route_restored"].dump().find("to-spine0"), std::string::npos);
  expect_nothing_left(before, run_id);
}

// The same fault, but the runner is SIGKILLed while the uplink is down and
// its routes withdrawn: nothing sets them back, so the killed run's
// namespaces still hold spine0's port down and tor0's one-spine route. Then
// `fabriclab cleanup` removes every namespace of the run (with the down
// port, the routes, the veths in them), every process, and no host link is
// left.
TEST_F(RunCommandTest, SigkillDuringAnUplinkFaultThenCleanupLeavesNothing) {
  HostState before;
  std::unique_ptr<ChildProcess> started;
  const std::string run_id = run_until_uplink_fault(started, before);
  ASSERT_FALSE(run_id.empty());
  ChildProcess& runner = *started;
  runner.signal(SIGKILL);
  runner.wait(10s);
  // What the kill left: the fault in force in the run's namespaces.
  EXPECT_FALSE(testing::run_netns_entries("fl-" + run_id).empty());
  EXPECT_EQ(in_netns(run_id, "tor0", "ip route show 10.77.2.0/24").find("to-spine0"),
            std::string::npos);
  EXPECT_NE(in_netns(run_id, "spine0", "ip -o link show").find("state DOWN"), std::string::npos)
      << in_netns(run_id, "spine0", "ip -o link show");
  auto cleanup = run_command({fabriclab::build_paths::fabriclab_binary(), "cleanup"}, {}, 60s);
  EXPECT_EQ(cleanup.status.code, 0) << cleanup.output;
  EXPECT_NE(cleanup.output.find(run_id), std::string::npos) << cleanup.output;
  EXPECT_NE(cleanup.output.find("spine0"), std::string::npos) << cleanup.output;
  expect_nothing_left(before, run_id);
}

TEST_F(RunCommandTest, AKilledRankFailsItsScenarioAndTheRunGoesOn) {
  write_lab(labs_, kLongTrainer, scenario("clean", "", 120, 30) + "\n" +
                                     "[[scenario]]\nname = \"short\"\ncondition = \"short\"\n"
                                     "deadline_s = 15\nstall_s = 10\n");
  HostState before;
  ChildProcess runner(run_argv(), {}, dir_.path() + "/out.txt");
  const std::string run_id = wait_for_run_id(before, 30s);
  ASSERT_FALSE(run_id.empty()) << runner.output();
  ASSERT_TRUE(wait_for_training(output_, 60s)) << runner.output();
  pid_t rank = -1;
  for (pid_t pid : testing::marked_processes(run_id)) {
    if (testing::read_file("/proc/" + std::to_string(pid) + "/cmdline").find("train") !=
        std::string::npos)
      rank = pid;
  }
  ASSERT_GT(rank, 0) << "no rank process found";
  ASSERT_EQ(::kill(rank, SIGKILL), 0);
  // The scenario fails at once; the second one trains to its deadline of 15 s
  // and hits it (100000 steps), then the run ends.
  auto status = runner.wait(150s);
  ASSERT_TRUE(status.exited) << runner.output();
  EXPECT_EQ(status.code, 1) << runner.output();
  const nlohmann::json run = read_run_json(output_);
  ASSERT_FALSE(run.is_null()) << runner.output();
  const auto& clean = scenario_in(run, "clean");
  EXPECT_EQ(clean["status"], "failed");
  EXPECT_NE(clean["message"].get<std::string>().find("rank"), std::string::npos) << clean;
  EXPECT_EQ(scenario_in(run, "short")["status"], "deadline");
  expect_nothing_left(before, run_id);
}

// Three ranks in an allreduce sweep of big messages; rank 1 SIGKILLed in the
// middle of it. Its peers notice on their own (their connections to it are
// reset) and end with their own error well within their timeout; the
// scenario is FAILED naming rank 1 first, in run.json and in metrics.jsonl;
// the runner exits 1 and leaves nothing.
TEST_F(RunCommandTest, ARankKilledMidAllreduceIsNamedAndItsPeersEndOnTheirOwn) {
  std::filesystem::create_directories(labs_ + "/92-test");
  std::ofstream(labs_ + "/92-test/lab.toml")
      << "[lab]\nid = \"92\"\ntitle = \"test\"\nsummary = \"test\"\n"
      << "[workload]\nkind = \"allreduce\"\nminbytes = 4194304\nmaxbytes = 67108864\n"
      << "iters = 40\nwarmup_iters = 1\ntimeout_s = 60\n"
      << "[topology]\nranks = 3\n"
      << scenario("sweep", "", 120, 60);
  HostState before;
  ChildProcess runner(run_argv(), {}, dir_.path() + "/out.txt");
  const std::string run_id = wait_for_run_id(before, 30s);
  ASSERT_FALSE(run_id.empty()) << runner.output();
  ASSERT_TRUE(wait_for_training(output_, 60s)) << runner.output();
  pid_t rank1 = -1;
  for (pid_t pid : testing::marked_processes(run_id)) {
    const std::string environ =
        std::string(1, '\0') + testing::read_file("/proc/" + std::to_string(pid) + "/environ");
    if (environ.find(std::string("\0RANK=1\0", 8)) != std::string::npos) rank1 = pid;
  }
  ASSERT_GT(rank1, 0) << "no process of rank 1";
  ASSERT_EQ(::kill(rank1, SIGKILL), 0);
  // How soon it ends is not asserted: that the peers ended by themselves,
  // each with its own error, is (the message below); the wait stops a hang.
  auto status = runner.wait(600s);
  ASSERT_TRUE(status.exited) << runner.output();
  EXPECT_EQ(status.code, 1) << runner.output();

  const nlohmann::json run = read_run_json(output_);
  ASSERT_FALSE(run.is_null()) << runner.output();
  const auto& sweep = scenario_in(run, "sweep");
  EXPECT_EQ(sweep["status"], "failed");
  const std::string message = sweep["message"].get<std::string>();
  EXPECT_EQ(message.rfind("rank 1 killed by signal 9", 0), 0u) << message;
  // Both peers ended by themselves, each with its own error.
  EXPECT_NE(message.find("then rank 0 exited with code"), std::string::npos) << message;
  EXPECT_NE(message.find("then rank 2 exited with code"), std::string::npos) << message;
  bool failed_end = false;
  for (const auto& event : events_of(output_, "sweep"))
    failed_end |=
        event.value("event", "") == "scenario_end" && event.value("status", "") == "failed";
  EXPECT_TRUE(failed_end) << "no failed scenario_end in metrics.jsonl";
  expect_nothing_left(before, run_id);
}

// Kills the runner of the lab in labs_ with SIGKILL once its ranks train;
// its namespaces (`namespaces` of them, mounted under /run/netns) outlive
// it, and `fabriclab cleanup` removes exactly them, with every process of
// the run. `named` must appear in cleanup's report.
void RunCommandTest::kill_while_training_then_clean_up(size_t namespaces, const std::string& named) {
  HostState before;
  ChildProcess runner(run_argv(), {}, dir_.path() + "/out.txt");
  const std::string run_id = wait_for_run_id(before, 30s);
  ASSERT_FALSE(run_id.empty()) << runner.output();
  ASSERT_TRUE(wait_for_training(output_, 60s)) << runner.output();
  runner.signal(SIGKILL);
  runner.wait(10s);
  EXPECT_EQ(testing::run_netns_entries("fl-" + run_id).size(), namespaces);
  auto cleanup = run_command({fabriclab::build_paths::fabriclab_binary(), "cleanup"}, {}, 60s);
  EXPECT_EQ(cleanup.status.code, 0) << cleanup.output;
  EXPECT_NE(cleanup.output.find(run_id), std::string::npos) << cleanup.output;
  EXPECT_NE(cleanup.output.find(named), std::string::npos) << cleanup.output;
  expect_nothing_left(before, run_id);
}

TEST_F(RunCommandTest, AfterSigkillCleanupRemovesTheRun) {
  write_lab(labs_, kLongTrainer, scenario("latency", "delay 5ms", 120, 30));
  kill_while_training_then_clean_up(2, "-r1");
}

// The same on a leaf-spine fabric with its own shaped host links (tbf) and
// impaired uplinks (the userspace backend's rules and queues in the
// routers), killed while its ranks train across the spines: cleanup removes
// all six namespaces -- hosts, ToRs, spines, with their links, routes,
// qdiscs and rules -- and every process.
TEST_F(RunCommandTest, AfterSigkillCleanupRemovesALeafSpineRun) {
  write_lab(labs_, kLongTrainer,
            "kind = \"leaf_spine\"\nhost_links = \"rate 500mbit\"\n"
            "uplinks = \"delay 1ms rate 200mbit\"\n" +
                scenario("apart", "", 120, 30) + "placement = [\"r0\", \"r1\"]\n");
  kill_while_training_then_clean_up(6, "spine1");
}

// As an ordinary user (uid 65534): the runner enters a user namespace and does
// the same, the userspace backend included.
TEST(RunCommandRootless, AnOrdinaryUserRunsALab) {
  if (::geteuid() != 0) SKIP_OR_FAIL_IN_CI("needs root to switch to an ordinary user (setpriv)");
  // Asked of the kernel, not of the runner (its check is under test): where
  // nobody may create user namespaces, the runner failing is a failure.
  std::string why_not;
  if (!fabriclab::testing::user_namespaces_work(&why_not)) GTEST_SKIP() << why_not;
  TempDir dir;
  std::filesystem::permissions(dir.path(), std::filesystem::perms::all);
  const std::string labs = dir.path() + "/labs", output = dir.path() + "/runs";
  write_lab(labs, kSmallTrainer, scenario("clean", "", 60, 20) + scenario("latency", "delay 20ms", 60, 20));
  auto r = run_command({"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                        "--", fabriclab::build_paths::fabriclab_binary(), "run", "92", "--labs",
                        labs, "--output", output, "--backend", "userspace", "--no-charts"},
                       {{"XDG_RUNTIME_DIR", ""}}, 180s);
  ASSERT_EQ(r.status.code, 0) << r.output;
  const nlohmann::json run = read_run_json(output);
  ASSERT_FALSE(run.is_null()) << r.output;
  EXPECT_EQ(run["privileges"], "rootless");
  EXPECT_EQ(scenario_in(run, "clean")["status"], "completed") << r.output;
  EXPECT_EQ(scenario_in(run, "latency")["status"], "completed") << r.output;
  EXPECT_GE(scenario_in(run, "latency")["result"]["wall_s"].get<double>(),
            testing::least_wall_s(15, 0.020));
}

}  // namespace
}  // namespace fabriclab::runner
