// Fault injection in host mode: the lead's or the follower's runner SIGKILLed
// at each phase of a scenario (FABRICLAB_FAULT_AT, common/fault_point.h),
// two namespaces playing two hosts (two_hosts.h). The other runner must end
// on its own, exit 1, naming the lost host -- never abort (the follower
// whose lead went used to: runner/host/store_connection.h); then plain
// `fabriclab cleanup`, on its own, leaves nothing of either runner. Checked
// by state (tests/support/kernel_state.h): the killed runner stops at its
// point before the kill (FABRICLAB_FAULT_STOP), the test reads both hosts'
// nft tables and qdiscs and both runs' processes by pid and start time, and
// after the cleanup those processes are gone, no fabriclab nft table and no
// qdisc the runs added is left on either host, nor a ledger. And a rank (not a runner)
// SIGKILLed on either host mid-training: the scenario is FAILED in the lead's
// run.json naming that rank first, both runners exit 1, nothing is left.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <thread>

#include "common/build_paths.h"
#include "tests/runner/host/two_hosts.h"
#include "tests/runner/lab_files.h"
#include "tests/runner/test_support.h"
#include "tests/support/child_process.h"
#include "tests/support/kernel_state.h"

namespace fabriclab::runner {
namespace {

using namespace std::chrono_literals;
using fabriclab::testing::ChildProcess;
using fabriclab::testing::ExitStatus;
using fabriclab::testing::run_command;
using testing::TempDir;
using testing::TwoHosts;
namespace ks = fabriclab::testing;

const char* const kLedgers = "/run/fabriclab/runs";

// The run ids of the ledgers whose owner is `pid` (host mode's ledger id is
// the host's own, not the lead's run id in the recording).
std::vector<std::string> ledgers_owned_by(pid_t pid) {
  std::vector<std::string> ids;
  std::error_code ignored;
  for (const auto& entry : std::filesystem::directory_iterator(kLedgers, ignored)) {
    if (entry.path().extension() != ".json") continue;
    try {
      std::ifstream in(entry.path());
      const auto ledger = nlohmann::json::parse(in);
      if (ledger.at("owner").at("pid").get<pid_t>() == pid)
        ids.push_back(ledger.at("run_id").get<std::string>());
    } catch (const std::exception&) {
      // being rewritten, or not a ledger
    }
  }
  return ids;
}

struct Case {
  int killed;  // 0 = the lead, 1 = the follower
  std::string point;
};

void PrintTo(const Case& c, std::ostream* out) {
  *out << (c.killed == 0 ? "lead" : "follower") << " at " << c.point;
}

class HostFaultTest : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    SKIP_UNLESS_NETNS_PRIVILEGES();
    ASSERT_TRUE(hosts_.ok()) << "cannot build the two host namespaces";
    labs_ = dir_.path() + "/labs";
    // Six steps: the scenario ends and both runners reach their teardown.
    testing::write_lab(labs_,
                       "model = \"mlp\"\nwidth = 64\nsteps = 6\nbatch = 64\ntimeout_s = 10\n",
                       testing::scenario("latency", "delay 2ms", 12, 10));
  }

  // With a fault point, the runner stops there before its kill
  // (FABRICLAB_FAULT_STOP): wait_until_stopped(), read the state, SIGCONT.
  std::unique_ptr<ChildProcess> start_runner(int h, const std::string& fault_at) {
    std::map<std::string, std::string> env;
    if (!fault_at.empty()) {
      env["FABRICLAB_FAULT_AT"] = fault_at;
      env["FABRICLAB_FAULT_STOP"] = "1";
    }
    return std::make_unique<ChildProcess>(
        hosts_.inside(
            h, {fabriclab::build_paths::fabriclab_binary(), "run", "92", "--labs", labs_,
                "--output", dir_.path() + "/runs-" + std::to_string(h), "--backend", "userspace",
                "--no-charts", "--hosts", TwoHosts::hosts(), "--iface", hosts_.device(h)}),
        env, dir_.path() + "/out-" + std::to_string(h) + ".txt");
  }

  // Host h's namespace, as nsenter takes it.
  std::string netns_path(int h) const { return "/run/netns/" + hosts_.netns(h); }

  TwoHosts hosts_;  // declared first: outlives the runners inside it
  TempDir dir_;
  std::string labs_;
};

TEST_P(HostFaultTest, TheOtherHostNamesTheLostOneAndNothingIsLeft) {
  const Case& c = GetParam();
  const int other = 1 - c.killed;
  // Before the runs: what they add must go.
  std::set<std::string> qdiscs_before[2];
  for (int h = 0; h < 2; ++h) qdiscs_before[h] = ks::qdiscs(netns_path(h));
  std::unique_ptr<ChildProcess> runner[2];
  runner[1] = start_runner(1, c.killed == 1 ? c.point : "");
  runner[0] = start_runner(0, c.killed == 0 ? c.point : "");
  // The other runner's ledger, read while it runs: it must be gone at the end.
  std::vector<std::string> other_ledgers;
  const auto look_until = std::chrono::steady_clock::now() + 30s;
  while (other_ledgers.empty() && std::chrono::steady_clock::now() < look_until) {
    other_ledgers = ledgers_owned_by(runner[other]->pid());
    std::this_thread::sleep_for(50ms);
  }

  // Stopped at the point, before the kill: what both hosts hold now.
  ASSERT_TRUE(runner[c.killed]->wait_until_stopped(90s))
      << "the runner did not stop at " << c.point << "\n"
      << runner[c.killed]->output() << runner[other]->output();
  const std::vector<std::string> killed_ledgers = ledgers_owned_by(runner[c.killed]->pid());
  std::vector<std::string> ids = killed_ledgers;
  ids.insert(ids.end(), other_ledgers.begin(), other_ledgers.end());
  std::vector<pid_t> pids = {runner[0]->pid(), runner[1]->pid()};
  for (const std::string& id : ids)
    for (pid_t pid : testing::marked_processes(id)) pids.push_back(pid);
  std::set<ks::ProcessIdentity> processes;
  for (pid_t pid : pids)
    if (ks::identify_process(pid).pid > 0) processes.insert(ks::identify_process(pid));
  std::set<std::string> tables_at_kill[2], qdiscs_at_kill[2];
  for (int h = 0; h < 2; ++h) {
    tables_at_kill[h] = ks::nft_tables(netns_path(h));
    qdiscs_at_kill[h] = ks::qdiscs(netns_path(h));
  }
  runner[c.killed]->signal(SIGCONT);
  // Every point here has the scenario's delay on: the userspace backend's
  // nft table on the killed host's lab interface.
  std::string killed_tables;
  for (const std::string& table : tables_at_kill[c.killed]) killed_tables += table + "\n";
  EXPECT_NE(killed_tables.find("fabriclab"), std::string::npos)
      << "no fabriclab nft table on the killed host at " << c.point << ":\n"
      << killed_tables;
  EXPECT_FALSE(killed_ledgers.empty()) << "no ledger of the killed runner";

  const ExitStatus killed = runner[c.killed]->wait(90s);
  ASSERT_EQ(killed.signal, SIGKILL) << runner[c.killed]->output() << runner[other]->output();
  ASSERT_NE(runner[c.killed]->output().find("fault point " + c.point + ": SIGKILL"),
            std::string::npos)
      << runner[c.killed]->output();

  // The other host ends on its own, naming the lost one; it does not abort.
  const ExitStatus survivor = runner[other]->wait(90s);
  ASSERT_TRUE(survivor.exited) << "the other runner did not end\n" << runner[other]->output();
  EXPECT_EQ(runner[other]->output().find("terminate called"), std::string::npos)
      << runner[other]->output();
  const std::regex named("lost[^\n]*host " + std::to_string(c.killed) + " \\(" +
                         TwoHosts::lab_addr(c.killed) + "\\)");
  // A lead killed after its ranks stopped may have answered the follower's
  // outcome and goodbye just before: the follower's part is then done and
  // it may end 0. Otherwise (and always when the lead took no goodbye) it
  // ends 1 naming its lead.
  const bool follower_done_first =
      c.killed == 0 && c.point == "ranks_stopped" && survivor.code == 0;
  if (!follower_done_first) {
    EXPECT_EQ(survivor.code, 1) << runner[other]->output();
    EXPECT_TRUE(std::regex_search(runner[other]->output(), named)) << runner[other]->output();
  }

  // Plain `fabriclab cleanup` alone, as a student runs it: everything is
  // checked after it, before anything else runs.
  auto cleanup = run_command({fabriclab::build_paths::fabriclab_binary(), "cleanup"}, {}, 60s);
  EXPECT_EQ(cleanup.status.code, 0) << cleanup.output;

  EXPECT_FALSE(other_ledgers.empty()) << "never saw the other runner's ledger";
  const auto any_alive = [&] {
    for (const ks::ProcessIdentity& p : processes)
      if (ks::process_alive(p)) return true;
    for (const std::string& id : ids)
      if (!testing::marked_processes(id).empty()) return true;
    return false;
  };
  const auto give_up = std::chrono::steady_clock::now() + 120s;  // a hang guard, not a bound
  while (any_alive() && std::chrono::steady_clock::now() < give_up)
    std::this_thread::sleep_for(100ms);
  for (const ks::ProcessIdentity& p : processes)
    EXPECT_FALSE(ks::process_alive(p)) << "process " << p.pid << " of the runs left";
  for (const std::string& id : ids) {
    EXPECT_TRUE(testing::marked_processes(id).empty()) << "processes of run " << id << " left";
    EXPECT_FALSE(std::filesystem::exists(std::string(kLedgers) + "/" + id + ".json"))
        << "ledger " << id << " left\n"
        << cleanup.output;
  }
  for (int h = 0; h < 2; ++h) {
    for (const std::string& table : ks::nft_tables(netns_path(h)))
      EXPECT_EQ(table.find("fabriclab"), std::string::npos) << "host " << h << ": " << table;
    const std::set<std::string> now = ks::qdiscs(netns_path(h));
    for (const std::string& qdisc : ks::added(qdiscs_before[h], qdiscs_at_kill[h]))
      EXPECT_EQ(now.count(qdisc), 0u) << "host " << h << ": qdisc the run added left: " << qdisc;
    EXPECT_EQ(hosts_.nft_tables(h).find("fabriclab"), std::string::npos) << hosts_.nft_tables(h);
    EXPECT_EQ(hosts_.qdiscs(h).find("fab0:"), std::string::npos) << hosts_.qdiscs(h);
  }

  // `cleanup --iface` is for the netem backend's fab0: qdisc when even its
  // guardian is gone (tests/runner/cleanup/interface_cleanup_test.cc); with
  // the userspace backend it finds nothing left here, and must say so
  // without failing -- a student may run it after any kill.
  auto iface = run_command({fabriclab::build_paths::fabriclab_binary(), "cleanup", "--iface",
                            hosts_.device(c.killed), "--netns", hosts_.netns(c.killed)},
                           {}, 60s);
  EXPECT_EQ(iface.status.code, 0) << iface.output;
}

// A rank SIGKILLed on host `GetParam()` (rank h runs there) mid-training.
class HostRankKillTest : public HostFaultTest {};

TEST_P(HostRankKillTest, TheScenarioFailsNamingTheRankAndNothingIsLeft) {
  const int h = GetParam().killed;
  testing::write_lab(labs_,
                     "model = \"mlp\"\nwidth = 64\nsteps = 100000\nbatch = 64\ntimeout_s = 10\n",
                     testing::scenario("latency", "delay 2ms", 60, 30));
  std::unique_ptr<ChildProcess> runner[2];
  runner[1] = start_runner(1, "");
  runner[0] = start_runner(0, "");
  ASSERT_TRUE(testing::wait_for_training(dir_.path() + "/runs-0", 60s, "ranks/latency"))
      << runner[0]->output() << runner[1]->output();
  std::vector<std::string> ids;
  for (int r = 0; r < 2; ++r)
    for (const std::string& id : ledgers_owned_by(runner[r]->pid())) ids.push_back(id);
  ASSERT_EQ(ids.size(), 2u) << "one ledger per runner expected";
  pid_t rank = -1;
  for (const std::string& id : ids)
    for (pid_t pid : testing::marked_processes(id)) {
      const std::string environ =
          std::string(1, '\0') + testing::read_file("/proc/" + std::to_string(pid) + "/environ");
      const std::string marker = std::string(1, '\0') + "RANK=" + std::to_string(h) + '\0';
      if (environ.find(marker) != std::string::npos) rank = pid;
    }
  ASSERT_GT(rank, 0) << "no process of rank " << h;
  ASSERT_EQ(::kill(rank, SIGKILL), 0);

  for (int r = 0; r < 2; ++r) {
    const ExitStatus status = runner[r]->wait(60s);
    ASSERT_TRUE(status.exited) << runner[r]->output();
    EXPECT_EQ(status.code, 1) << runner[r]->output();
    EXPECT_EQ(runner[r]->output().find("terminate called"), std::string::npos)
        << runner[r]->output();
  }
  const nlohmann::json run = testing::read_run_json(dir_.path() + "/runs-0");
  ASSERT_FALSE(run.is_null()) << runner[0]->output();
  const auto& latency = testing::scenario_in(run, "latency");
  EXPECT_EQ(latency["status"], "failed");
  // "host 1 (10.88.0.2): rank 1 killed by signal 9 (SIGKILL, Killed): ...; host 0 ...: rank 0 ..."
  const std::string message = latency["message"].get<std::string>();
  EXPECT_EQ(message.rfind("host " + std::to_string(h) + " (" + TwoHosts::lab_addr(h) + "): rank " +
                              std::to_string(h) + " killed by signal 9",
                          0),
            0u)
      << message;
  for (const std::string& id : ids) {
    EXPECT_TRUE(testing::marked_processes(id).empty()) << "processes of run " << id << " left";
    EXPECT_FALSE(std::filesystem::exists(std::string(kLedgers) + "/" + id + ".json"));
  }
  for (int r = 0; r < 2; ++r)
    EXPECT_EQ(hosts_.nft_tables(r).find("fabriclab"), std::string::npos) << hosts_.nft_tables(r);
}

INSTANTIATE_TEST_SUITE_P(OnEitherHost, HostRankKillTest,
                         ::testing::Values(Case{0, "rank"}, Case{1, "rank"}), [](const auto& info) {
                           return std::string(info.param.killed == 0 ? "Lead" : "Follower");
                         });

// The follower abort, end to end: the lead's runner frozen (SIGSTOP) while
// the follower joins -- the follower's connection is queued in the lead's
// kernel, never accepted -- then killed, which resets that connection. The
// follower must end with an error naming the lead. With c10d 1.13's client
// it aborted here ("terminate called after throwing an instance of
// 'std::system_error', what(): Connection reset by peer";
// runner/host/store_connection.h).
TEST_F(HostFaultTest, AFollowerJoiningAFrozenLeadThatDiesEndsWithAnError) {
  testing::write_lab(labs_, "model = \"mlp\"\nwidth = 64\nsteps = 6\nbatch = 64\ntimeout_s = 10\n",
                     testing::scenario("clean", "", 30, 20));
  auto lead = start_runner(0, "");
  const auto give_up = std::chrono::steady_clock::now() + 30s;
  while (lead->output().find("control store on port") == std::string::npos &&
         std::chrono::steady_clock::now() < give_up)
    std::this_thread::sleep_for(100ms);
  std::this_thread::sleep_for(1s);  // the store is up: it answers connections
  const std::vector<std::string> lead_ledgers = ledgers_owned_by(lead->pid());
  lead->signal(SIGSTOP);
  auto follower = start_runner(1, "");
  std::this_thread::sleep_for(3s);  // connected, into the frozen lead's accept queue
  lead->signal(SIGKILL);
  lead->wait(10s);

  const ExitStatus status = follower->wait(60s);
  ASSERT_TRUE(status.exited) << "the follower did not end by itself (signal " << status.signal
                             << ")\n"
                             << follower->output();
  EXPECT_EQ(status.code, 1) << follower->output();
  EXPECT_EQ(follower->output().find("terminate called"), std::string::npos) << follower->output();
  EXPECT_NE(follower->output().find(TwoHosts::lab_addr(0)), std::string::npos)
      << follower->output();

  auto cleanup = run_command({fabriclab::build_paths::fabriclab_binary(), "cleanup"}, {}, 60s);
  EXPECT_EQ(cleanup.status.code, 0) << cleanup.output;
  for (const std::string& id : lead_ledgers)
    EXPECT_FALSE(std::filesystem::exists(std::string(kLedgers) + "/" + id + ".json"));
  EXPECT_TRUE(ledgers_owned_by(follower->pid()).empty()) << "the follower's ledger left";
}

std::vector<Case> cases() {
  std::vector<Case> all;
  for (int killed : {0, 1})
    for (const char* point :
         {"impairment_applied", "ranks_launched", "mid_scenario", "ranks_stopped"})
      all.push_back({killed, point});
  return all;
}

INSTANTIATE_TEST_SUITE_P(LeadAndFollower, HostFaultTest, ::testing::ValuesIn(cases()),
                         [](const auto& info) {
                           return std::string(info.param.killed == 0 ? "Lead_" : "Follower_") +
                                  info.param.point;
                         });

}  // namespace
}  // namespace fabriclab::runner
