// The scenario runner's watchdog and link-setting paths, fast: a fake lab
// network (every rank in the runner's own namespace), a fake impairment
// backend that records what it was asked, and a fake workload whose ranks
// are /bin/sh scripts writing metrics events (doc/metrics.md) -- so a stall,
// a deadline, a failing rank and a clean finish each take a second or two.
// When a limit strikes is the Watchdog's, tested on chosen times (first
// below); the scenario tests assert only what no scheduling delay can change.
#include <gtest/gtest.h>

#include <csignal>
#include <fstream>
#include <sstream>

#include "netem/impairment.h"
#include "runner/cast/console.h"
#include "runner/lab/lab_definition.h"
#include "runner/ledger/ledger.h"
#include "runner/link/impair_setting.h"
#include "runner/rundir/run_format.h"
#include "runner/scenario/rank_state.h"
#include "runner/scenario/scenario_runner.h"
#include "runner/scenario/watchdog.h"
#include "runner/topology/lab_network.h"
#include "runner/workload/workload.h"
#include "tests/runner/test_support.h"

namespace fabriclab::runner {
namespace {

using Clock = Watchdog::Clock;
using std::chrono::milliseconds;

// Launch, then `ms` milliseconds after it.
const Clock::time_point kLaunch{};
Clock::time_point at(int ms) { return kLaunch + milliseconds(ms); }

TEST(Watchdog, NoStepForStallSecondsAfterTheLastIsAStall) {
  Watchdog w(1.0, 30.0, kLaunch);
  EXPECT_EQ(w.check(at(300), 1, false), WatchdogVerdict::kRunning);   // step 1
  EXPECT_EQ(w.check(at(1300), 1, false), WatchdogVerdict::kRunning);  // 1.0 s: not yet
  EXPECT_EQ(w.check(at(1301), 1, false), WatchdogVerdict::kStalled);
}

TEST(Watchdog, TheStallClockStartsAtLaunch) {
  Watchdog w(1.0, 30.0, kLaunch);
  EXPECT_EQ(w.check(at(900), 0, false), WatchdogVerdict::kRunning);
  EXPECT_EQ(w.check(at(1100), 0, false), WatchdogVerdict::kStalled);  // never rendezvoused
}

// A rank's start (its rendezvous done) is progress as a step is: a slow
// rendezvous over a lossy link and a slow first step get a stall limit each.
TEST(RankProgress, AStartCountsAsAStepDoes) {
  std::vector<RankState> ranks(2);
  EXPECT_EQ(progress_made(ranks), 0);
  ranks[0].take({{"event", "start"}, {"steps", 12}});
  EXPECT_EQ(progress_made(ranks), 1);
  ranks[1].take({{"event", "start"}, {"steps", 12}});
  ranks[1].take({{"event", "step"}, {"step", 1}});
  EXPECT_EQ(progress_made(ranks), 3);
  ranks[1].take({{"event", "counters"}});
  EXPECT_EQ(progress_made(ranks), 3);
}

TEST(Watchdog, ProgressPastTheDeadlineIsADeadline) {
  Watchdog w(20.0, 1.5, kLaunch);
  EXPECT_EQ(w.check(at(100), 1, false), WatchdogVerdict::kRunning);
  EXPECT_EQ(w.check(at(600), 2, false), WatchdogVerdict::kRunning);
  EXPECT_EQ(w.check(at(1500), 2, false), WatchdogVerdict::kRunning);
  EXPECT_EQ(w.check(at(1600), 3, false), WatchdogVerdict::kDeadline);
}

TEST(Watchdog, AStallBeatsADeadlineStruckAtTheSamePoll) {
  Watchdog w(1.0, 1.5, kLaunch);
  EXPECT_EQ(w.check(at(5000), 0, false), WatchdogVerdict::kStalled);
}

TEST(Watchdog, FinishedRanksGetTheExitGraceBeforeEitherLimit) {
  Watchdog w(1.0, 2.0, kLaunch);
  EXPECT_EQ(w.check(at(500), 3, true), WatchdogVerdict::kRunning);
  const auto grace = std::chrono::duration_cast<milliseconds>(Watchdog::kExitGrace).count();
  EXPECT_EQ(w.check(at(500 + static_cast<int>(grace) - 1), 3, true), WatchdogVerdict::kRunning);
  EXPECT_EQ(w.check(at(500 + static_cast<int>(grace)), 3, true), WatchdogVerdict::kStalled);
}

// Every rank local, in the runner's namespace; one target per impaired link.
class FakeNetwork : public LabNetwork {
 public:
  explicit FakeNetwork(int ranks) : ranks_(ranks) {}
  int world_size() const override { return ranks_; }
  std::string master_addr() const override { return "127.0.0.1"; }
  std::vector<LocalRank> local_ranks() const override {
    std::vector<LocalRank> out;
    for (int r = 0; r < ranks_; ++r) out.push_back({r, r, ranks_, -1, "fake", "127.0.0.1"});
    return out;
  }
  std::vector<netem::Target> impairment_targets(const std::vector<int>& link_ranks,
                                                netem::Direction direction) const override {
    std::vector<netem::Target> out;
    for (int r : link_ranks) out.push_back({"", -1, "fake" + std::to_string(r), {}, direction});
    return out;
  }
  std::vector<CounterSource> counter_sources() const override { return {}; }

 private:
  int ranks_;
};

// Records applies and removals in one log, in order.
class FakeBackend : public netem::Backend {
 public:
  std::string name() const override { return "fake"; }
  std::unique_ptr<netem::Applied> apply(const netem::Target& target,
                                        const netem::Spec&) override {
    if (target.device == fail_on) throw std::runtime_error("fake: cannot apply on " + fail_on);
    log.push_back("apply " + target.device);
    return std::make_unique<Applied>(this, target.device);
  }
  netem::Leftovers remove_leftovers(const netem::Target&, bool) override { return {}; }
  std::vector<std::string> log;
  std::string fail_on;

 private:
  class Applied : public netem::Applied {
   public:
    Applied(FakeBackend* owner, std::string device) : owner_(owner), device_(std::move(device)) {}
    ~Applied() override { owner_->log.push_back("remove " + device_); }
    netem::Stats stats() const override { return {10, 1000, 7, 0, 0}; }
    std::string describe() const override { return "fake on " + device_; }

   private:
    FakeBackend* owner_;
    std::string device_;
  };
};

// Ranks run `sh -c SCRIPT <metrics path> <rank>`; $1 is where to write.
class ScriptWorkload : public Workload {
 public:
  explicit ScriptWorkload(std::string script) : script_(std::move(script)) {}
  const char* name() const override { return "script"; }
  const std::map<std::string, ParamKind>& params() const override {
    static const std::map<std::string, ParamKind> none;
    return none;
  }
  std::vector<std::string> rank_command(const WorkloadDefinition&,
                                        const std::string& metrics_path) const override {
    return {"-c", script_, "sh", metrics_path};
  }
  int64_t planned_steps(const WorkloadDefinition&) const override { return 3; }
  int64_t model_params(const WorkloadDefinition&) const override { return 0; }

 private:
  std::string script_;
};

// Shell: one step event for step $2 of 3.
const char* kStep =
    "step() { echo \"{\\\"v\\\":1,\\\"event\\\":\\\"step\\\",\\\"rank\\\":0,\\\"step\\\":$1,"
    "\\\"loss\\\":1.0,\\\"step_ms\\\":5,\\\"ts\\\":$(date +%s.%N)}\" >> \"$M\"; }; M=$1; "
    "echo '{\"v\":1,\"event\":\"start\",\"steps\":3}' >> \"$M\"; ";

class WatchdogTest : public ::testing::Test {
 protected:
  WatchdogTest() : ledger_(make_id(), dir_.path() + "/ledgers"), console_(terminal_) {}

  static std::string make_id() {
    static int n = 0;
    return "wd" + std::to_string(::getpid() % 10000) + std::to_string(n++);
  }

  ScenarioOutcome run(const std::string& script, ScenarioDefinition scenario,
                      netem::Backend* backend = nullptr) {
    lab_.id = "94";
    lab_.workload.kind = "script";
    ScriptWorkload workload(std::string(kStep) + script);
    ScenarioContext context{&lab_,    &network_,   backend, &ledger_,
                            &console_, dir_.path(), 29500,   {}};
    context.executable = "/bin/sh";
    context.workload = &workload;
    return run_scenario(context, scenario);
  }

  static ScenarioDefinition scenario(double deadline_s, double stall_s) {
    ScenarioDefinition s;
    s.name = "s";
    s.deadline_s = deadline_s;
    s.stall_s = stall_s;
    return s;
  }

  testing::TempDir dir_;
  Ledger ledger_;
  std::ostringstream terminal_;
  Console console_;
  LabDefinition lab_;
  FakeNetwork network_{2};
};

TEST_F(WatchdogTest, RanksThatFinishTheirStepsComplete) {
  const ScenarioOutcome o = run("step 1; step 2; step 3; exit 0", scenario(30, 10));
  EXPECT_EQ(rundir::to_string(o.status), "completed") << o.message;
  EXPECT_EQ(o.steps_completed, 3);
  EXPECT_EQ(o.steps_planned, 3);
}

// The wiring: a stall ends the scenario, its ranks are stopped rather than
// waited for (each sleeps "forever" -- a wait would hit ctest's timeout),
// and the message names the limit. How many steps were seen by then depends
// on how fast the ranks started, so it is not asserted here.
TEST_F(WatchdogTest, NoStepForStallSecondsIsAStall) {
  const std::string pids = dir_.path() + "/pids";
  const ScenarioOutcome o =
      run("step 1; echo $$ >> '" + pids + "'; exec sleep 100000", scenario(100000, 1));
  EXPECT_EQ(rundir::to_string(o.status), "stalled");
  EXPECT_NE(o.message.find("no rank completed a step for 1 s"), std::string::npos) << o.message;
  // Each rank that got as far as its sleep (under load, maybe none) is gone.
  std::ifstream in(pids);
  for (int pid = 0; in >> pid;) EXPECT_NE(::kill(pid, 0), 0) << "rank pid " << pid << " still runs";
}

TEST_F(WatchdogTest, ProgressPastTheDeadlineIsADeadline) {
  const ScenarioOutcome o = run("step 1; step 2; exec sleep 100000", scenario(1.5, 100000));
  EXPECT_EQ(rundir::to_string(o.status), "deadline");
  EXPECT_NE(o.message.find("after the 2 s deadline; "), std::string::npos) << o.message;
  EXPECT_NE(o.message.find(" of 3 steps done"), std::string::npos) << o.message;
}

TEST_F(WatchdogTest, ARankExitingNonZeroFailsTheScenarioWithItsLastWords) {
  const ScenarioOutcome o =
      run("step 1; echo 'gloo: connection reset by peer' >&2; exit 3", scenario(30, 10));
  EXPECT_EQ(rundir::to_string(o.status), "failed");
  EXPECT_NE(o.message.find("connection reset by peer"), std::string::npos) << o.message;
}

TEST_F(WatchdogTest, LinkSettingsAreAppliedBeforeAndRemovedAfterInReverse) {
  FakeBackend backend;
  ScenarioDefinition s = scenario(30, 10);
  s.link_settings = {{"impair", impair_setting().parse("delay 1ms")}};
  s.link_ranks = {0, 1};
  const ScenarioOutcome o = run("step 1; step 2; step 3", s, &backend);
  EXPECT_EQ(rundir::to_string(o.status), "completed") << o.message;
  EXPECT_EQ(backend.log, (std::vector<std::string>{"apply fake0", "apply fake1", "remove fake1",
                                                   "remove fake0"}));
  EXPECT_EQ(o.applied, (std::vector<std::string>{"fake on fake0", "fake on fake1"}));
  // run.json's impairments: the one setting's entry holds where it went.
  ASSERT_EQ(o.impairments.size(), 1u) << o.impairments.dump();
  EXPECT_EQ(o.impairments[0]["applied"], nlohmann::json({"fake on fake0", "fake on fake1"}));
  // The drops the live view and the counters event show come from the settings.
  bool counted = false;
  for (const auto& e : o.events)
    counted = counted || (e.value("event", "") == "counters" && e.value("drops", 0) == 14);
  EXPECT_TRUE(counted);
}

TEST_F(WatchdogTest, ASettingThatCannotBeAppliedFailsTheScenarioAndLeavesNothing) {
  FakeBackend backend;
  backend.fail_on = "fake1";
  ScenarioDefinition s = scenario(30, 10);
  s.link_settings = {{"impair", impair_setting().parse("delay 1ms")}};
  s.link_ranks = {0, 1};
  const ScenarioOutcome o = run("step 1; step 2; step 3", s, &backend);
  EXPECT_EQ(rundir::to_string(o.status), "failed");
  EXPECT_NE(o.message.find("cannot apply on fake1"), std::string::npos);
  EXPECT_EQ(backend.log, (std::vector<std::string>{"apply fake0", "remove fake0"}));
}

}  // namespace
}  // namespace fabriclab::runner
