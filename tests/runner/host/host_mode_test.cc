// `fabriclab run --hosts` end to end: two namespaces play two lab hosts
// (two_hosts.h), a runner in host mode runs inside each, the real ranks
// train over Gloo across the veth "wire", and the userspace backend impairs
// each host's interface. A reduced lab must complete on both and the lead's
// recording must hold both ranks' events and pass the grader's consistency
// check like a namespace-mode one; while impaired, only lab traffic is
// delayed (ping to the peer's lab address slow, to its management address on
// the same interface not); a scenario that cuts the link (and the control
// store's traffic with it) stalls like in namespace mode; after a SIGKILL of either runner its
// rules are gone within seconds (owned by its netlink socket) while the other runner ends naming
// the lost host.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "common/build_paths.h"
#include "runner/grading/consistency.h"
#include "runner/grading/graded_run.h"
#include "runner/lab/exercise.h"
#include "tests/runner/host/two_hosts.h"
#include "tests/runner/lab_files.h"
#include "tests/runner/test_support.h"
#include "tests/support/child_process.h"

namespace fabriclab::runner {
namespace {

using namespace std::chrono_literals;
using fabriclab::testing::ChildProcess;
using testing::read_run_json;
using testing::scenario;
using testing::scenario_in;
using testing::TempDir;
using testing::TwoHosts;
using testing::wait_for_training;
using testing::write_lab;

// Long enough (60 steps at 40 ms RTT) to ping while the latency scenario runs.
const char* const kSmallTrainer =
    "model = \"mlp\"\nwidth = 64\nsteps = 60\nbatch = 64\ntimeout_s = 60\n";
const char* const kLongTrainer =
    "model = \"mlp\"\nwidth = 64\nsteps = 100000\nbatch = 64\ntimeout_s = 60\n";

// The run directory under `output` (there is one per test and host).
std::string run_dir_in(const std::string& output) {
  std::error_code ignored;
  for (const auto& entry : std::filesystem::directory_iterator(output, ignored))
    return entry.path();
  return "";
}

// Ranks (as a set) with step events in `scenario` of a metrics.jsonl.
std::set<int> ranks_with_steps(const std::string& metrics, const std::string& scenario_name) {
  std::set<int> ranks;
  std::istringstream lines(testing::read_file(metrics));
  std::string line;
  while (std::getline(lines, line)) {
    const auto event = nlohmann::json::parse(line);
    if (event.value("event", "") == "step" && event.value("scenario", "") == scenario_name)
      ranks.insert(event.value("rank", -1));
  }
  return ranks;
}

// Polls until `done()` or `limit`; returns done().
template <typename Done>
bool eventually(Done done, std::chrono::milliseconds limit) {
  const auto give_up = std::chrono::steady_clock::now() + limit;
  while (!done() && std::chrono::steady_clock::now() < give_up) std::this_thread::sleep_for(100ms);
  return done();
}

class HostModeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SKIP_UNLESS_NETNS_PRIVILEGES();
    ASSERT_TRUE(hosts_.ok()) << "cannot build the two host namespaces";
    labs_ = dir_.path() + "/labs";
  }

  std::string output(int h) const { return dir_.path() + "/runs-" + std::to_string(h); }

  std::unique_ptr<ChildProcess> start_runner(int h) {
    auto argv =
        hosts_.inside(h, {fabriclab::build_paths::fabriclab_binary(), "run", "92", "--labs", labs_,
                          "--output", output(h), "--backend", "userspace", "--no-charts", "--hosts",
                          TwoHosts::hosts(), "--iface", hosts_.device(h)});
    return std::make_unique<ChildProcess>(argv, std::map<std::string, std::string>{},
                                          dir_.path() + "/out-" + std::to_string(h) + ".txt");
  }

  // SIGKILLs runner `killed` mid-scenario; its rules must vanish, the other
  // runner must end naming it (the lead with a recording of what ran).
  void kill_one_runner(int killed) {
    write_lab(labs_, kLongTrainer, scenario("latency", "delay 5ms", 90, 60));
    const int other = 1 - killed;
    auto follower = start_runner(1);
    auto lead = start_runner(0);
    ChildProcess* runner[2] = {lead.get(), follower.get()};
    ASSERT_TRUE(wait_for_training(output(0), 90s, "ranks/latency"))
        << lead->output() << follower->output();
    ASSERT_NE(hosts_.nft_tables(killed).find("fabriclab_"), std::string::npos)
        << "no impairment to check for\n"
        << hosts_.nft_tables(killed);

    runner[killed]->signal(SIGKILL);
    runner[killed]->wait(10s);
    EXPECT_TRUE(eventually(
        [&] { return hosts_.nft_tables(killed).find("fabriclab") == std::string::npos; }, 5s))
        << "rules left on the killed runner's interface:\n"
        << hosts_.nft_tables(killed);

    // The other runner ends within the silent limit, naming the lost host.
    auto status = runner[other]->wait(60s);
    ASSERT_TRUE(status.exited) << "the other runner did not end\n" << runner[other]->output();
    EXPECT_EQ(status.code, 1) << runner[other]->output();
    // "lost host 1 (10.88.0.2): no heartbeat ..." / "lost the lead, host 0 (10.88.0.1): ..."
    const std::regex named("lost[^\n]*host " + std::to_string(killed) + " \\(" +
                           TwoHosts::lab_addr(killed) + "\\)");
    EXPECT_TRUE(std::regex_search(runner[other]->output(), named)) << runner[other]->output();
    EXPECT_EQ(hosts_.nft_tables(other).find("fabriclab"), std::string::npos)
        << hosts_.nft_tables(other);
    if (other == 0) {  // the lead still writes the recording of what ran
      const nlohmann::json run = read_run_json(output(0));
      ASSERT_FALSE(run.is_null()) << lead->output();
      const auto& latency = scenario_in(run, "latency");
      EXPECT_EQ(latency["status"], "failed");
      EXPECT_NE(latency["message"].get<std::string>().find(TwoHosts::lab_addr(1)),
                std::string::npos)
          << latency;
    }
  }

  TwoHosts hosts_;  // declared first: outlives the runners inside it
  TempDir dir_;
  std::string labs_;
};

TEST_F(HostModeTest, ReducedLabRunsAcrossTwoHostsAndImpairsOnlyLabTraffic) {
  const std::string folder =
      write_lab(labs_, kSmallTrainer,
                scenario("clean", "", 90, 30) + scenario("latency", "delay 20ms", 90, 30) +
                    // Cuts the control store's traffic too: a stall, not a lost host.
                    scenario("stuck", "loss 100%", 40, 8));
  // The follower first: hosts may start in any order.
  auto follower = start_runner(1);
  std::this_thread::sleep_for(1s);
  auto lead = start_runner(0);

  ASSERT_TRUE(wait_for_training(output(0), 120s, "ranks/latency"))
      << lead->output() << follower->output();
  const double mgmt_ms = hosts_.min_rtt_ms(0, TwoHosts::mgmt_addr(1));
  const double lab_ms = hosts_.min_rtt_ms(0, TwoHosts::lab_addr(1));
  // 20 ms as the packets arrive at each host: the round trip gains 40 ms
  // ("at least": a ping cannot beat the hold). That management traffic is
  // not held is read from what was held, below, not from a ping's speed.
  EXPECT_GE(lab_ms, 38) << "lab traffic not delayed";
  EXPECT_GE(mgmt_ms, 0) << "management address did not answer";

  auto lead_status = lead->wait(180s);
  auto follower_status = follower->wait(30s);
  ASSERT_TRUE(lead_status.exited && follower_status.exited) << lead->output() << follower->output();
  EXPECT_EQ(lead_status.code, 0) << lead->output();
  EXPECT_EQ(follower_status.code, 0) << follower->output();

  const nlohmann::json run = read_run_json(output(0));
  ASSERT_FALSE(run.is_null()) << lead->output();
  EXPECT_EQ(run["mode"], "host");
  EXPECT_EQ(run["hosts"], nlohmann::json({TwoHosts::lab_addr(0), TwoHosts::lab_addr(1)}));
  EXPECT_TRUE(read_run_json(output(1)).is_null()) << "only the lead writes run.json";
  const auto& clean = scenario_in(run, "clean");
  const auto& latency = scenario_in(run, "latency");
  ASSERT_EQ(clean["status"], "completed") << lead->output();
  ASSERT_EQ(latency["status"], "completed") << lead->output();
  EXPECT_GE(latency["result"]["wall_s"].get<double>(), testing::least_wall_s(60, 0.020));
  // One per host, each holding only the other host's lab address.
  const auto& applied = latency["impairments"][0]["applied"];
  EXPECT_EQ(applied.size(), 2u) << latency;
  for (const auto& line : applied) {
    const std::string text = line.get<std::string>();
    const bool from_lab = text.find(" from " + TwoHosts::lab_addr(0) + ":") != std::string::npos ||
                          text.find(" from " + TwoHosts::lab_addr(1) + ":") != std::string::npos;
    EXPECT_TRUE(from_lab) << text;
    for (int h = 0; h < 2; ++h)
      EXPECT_EQ(text.find(TwoHosts::mgmt_addr(h)), std::string::npos) << text;
  }
  EXPECT_EQ(scenario_in(run, "stuck")["status"], "stalled") << lead->output();

  const std::string dir = run_dir_in(output(0));
  for (const char* name : {"clean", "latency"})
    EXPECT_EQ(ranks_with_steps(dir + "/metrics.jsonl", name), std::set<int>({0, 1})) << name;
  // Graded like a namespace-mode recording: it must be consistent.
  const auto problems = grading::check_consistency(runner::load_lab(folder + "/lab.toml"),
                                                   grading::load_graded_run(dir));
  for (const auto& p : problems)
    ADD_FAILURE() << p.scenario << " rank " << p.rank << ": " << p.message;
  // Both interfaces are back to what they were.
  for (int h = 0; h < 2; ++h) EXPECT_EQ(hosts_.nft_tables(h).find("fabriclab"), std::string::npos);
}

// What a runner SIGKILLed together with its guardian leaves behind: fabriclab's
// root qdisc on the lab interface. The next run removes it before measuring
// (an htb stands in for netem, which this kernel lacks).
TEST_F(HostModeTest, ALeftoverQdiscIsRemovedBeforeTheNextRunMeasures) {
  write_lab(labs_, kSmallTrainer, scenario("clean", "", 90, 30));
  const auto qdiscs = [&] {
    return fabriclab::testing::run_command(
               hosts_.inside(0, {"/usr/sbin/tc", "qdisc", "show", "dev", hosts_.device(0)}))
        .output;
  };
  ASSERT_EQ(fabriclab::testing::run_command(
                hosts_.inside(0, {"/usr/sbin/tc", "qdisc", "add", "dev", hosts_.device(0), "root",
                                  "handle", "fab0:", "htb"}))
                .status.code,
            0);
  ASSERT_NE(qdiscs().find("fab0:"), std::string::npos) << qdiscs();

  auto follower = start_runner(1);
  auto lead = start_runner(0);
  auto lead_status = lead->wait(120s);
  auto follower_status = follower->wait(30s);
  ASSERT_TRUE(lead_status.exited && follower_status.exited) << lead->output() << follower->output();
  EXPECT_EQ(lead_status.code, 0) << lead->output();
  EXPECT_EQ(follower_status.code, 0) << follower->output();
  EXPECT_NE(lead->output().find("left over from an earlier run: removed root htb fab0:"),
            std::string::npos)
      << lead->output();
  EXPECT_EQ(follower->output().find("left over"), std::string::npos) << follower->output();
  EXPECT_EQ(qdiscs().find("fab0:"), std::string::npos) << qdiscs();
}

// Tables owned by a live process (another runner, or `netem apply` by hand)
// cannot be removed: the run must not start and measure through them.
TEST_F(HostModeTest, ALiveImpairmentOnTheInterfaceStopsTheRunBeforeItStarts) {
  write_lab(labs_, kSmallTrainer, scenario("clean", "", 90, 30));
  ChildProcess holder(
      hosts_.inside(0, {fabriclab::build_paths::fabriclab_binary(), "netem", "apply",
                        hosts_.device(0), "delay", "5ms", "--backend", "userspace"}),
      {}, dir_.path() + "/holder.txt");
  ASSERT_TRUE(eventually(
      [&] { return hosts_.nft_tables(0).find("fabriclab_") != std::string::npos; }, 10s))
      << holder.output();

  auto lead = start_runner(0);
  auto status = lead->wait(30s);
  ASSERT_TRUE(status.exited) << lead->output();
  EXPECT_EQ(status.code, 1) << lead->output();
  EXPECT_NE(lead->output().find("cannot start while fabriclab's impairment is on it"),
            std::string::npos)
      << lead->output();
  EXPECT_NE(lead->output().find("still running"), std::string::npos) << lead->output();
  EXPECT_NE(hosts_.nft_tables(0).find("fabriclab_"), std::string::npos)
      << "the other process's impairment was touched";
  EXPECT_TRUE(read_run_json(output(0)).is_null()) << "nothing recorded for a run that never began";
}

TEST_F(HostModeTest, AKilledFollowerLosesItsRulesAndTheLeadNamesIt) { kill_one_runner(1); }

TEST_F(HostModeTest, AKilledLeadLosesItsRulesAndTheFollowerNamesIt) { kill_one_runner(0); }

// Ctrl-C on one host ends the run on every host after the current scenario:
// the next scenario does not start anywhere, the lead records what ran.
class HostModeCtrlCTest : public HostModeTest, public ::testing::WithParamInterface<int> {};

TEST_P(HostModeCtrlCTest, EndsTheRunEverywhere) {
  const int interrupted = GetParam();
  write_lab(labs_, kLongTrainer, scenario("clean", "", 90, 60) + scenario("next", "", 90, 60));
  auto lead = start_runner(0);
  auto follower = start_runner(1);
  ChildProcess* runner[2] = {lead.get(), follower.get()};
  ASSERT_TRUE(wait_for_training(output(0), 90s, "ranks/clean"))
      << lead->output() << follower->output();
  runner[interrupted]->signal(SIGINT);
  auto interrupted_status = runner[interrupted]->wait(30s);
  auto other_status = runner[1 - interrupted]->wait(30s);
  ASSERT_TRUE(interrupted_status.exited && other_status.exited)
      << lead->output() << follower->output();
  EXPECT_EQ(interrupted_status.code, 1) << runner[interrupted]->output();
  EXPECT_EQ(other_status.code, 1) << runner[1 - interrupted]->output();
  EXPECT_NE(runner[interrupted]->output().find("INTERRUPTED"), std::string::npos)
      << runner[interrupted]->output();
  const nlohmann::json run = read_run_json(output(0));
  ASSERT_FALSE(run.is_null()) << lead->output();
  EXPECT_EQ(run["scenarios"].size(), 1u) << "the next scenario started\n" << lead->output();
  EXPECT_EQ(scenario_in(run, "clean")["status"], "interrupted") << lead->output();
}

INSTANTIATE_TEST_SUITE_P(OnEitherHost, HostModeCtrlCTest, ::testing::Values(0, 1),
                         [](const auto& info) { return info.param == 0 ? "Lead" : "Follower"; });

TEST_F(HostModeTest, BadHostListOrInterfaceIsInputError) {
  write_lab(labs_, kSmallTrainer, scenario("clean", "", 90, 30));
  auto run = [&](const std::string& hosts, const std::string& iface) {
    return fabriclab::testing::run_command(
        hosts_.inside(0, {fabriclab::build_paths::fabriclab_binary(), "run", "92", "--labs", labs_,
                          "--output", output(0), "--hosts", hosts, "--iface", iface}));
  };
  auto r = run("10.88.0.7,10.88.0.8", hosts_.device(0));
  EXPECT_EQ(r.status.code, 2) << r.output;
  EXPECT_NE(r.output.find("none of the hosts"), std::string::npos) << r.output;
  // The lab address is on laba, not lo: impairing lo would miss the lab traffic.
  r = run(TwoHosts::hosts(), "lo");
  EXPECT_EQ(r.status.code, 2) << r.output;
  EXPECT_NE(r.output.find("is not on it"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(output(0)));
}

}  // namespace
}  // namespace fabriclab::runner
