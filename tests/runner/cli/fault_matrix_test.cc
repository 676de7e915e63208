// Fault injection: the runner SIGKILLed at each phase of a run, then
// `fabriclab cleanup` -- nothing of the run may be left, every time.
//
// The kill is deterministic: FABRICLAB_FAULT_AT=<point> makes the runner
// SIGKILL itself when it reaches that point (common/fault_point.h), so each
// case dies exactly where its name says: topology built, impairment applied,
// ranks launched, mid-scenario (every rank 2 steps in), teardown with the
// ranks stopped but the impairment on, teardown with one namespace removed
// and the others not. Each point on four labs: two ranks with the userspace
// backend's delay; a switch with a queue and a neighbour's iperf3 flow; a
// leaf-spine fabric with shaped host links and impaired uplinks; and the
// first as an ordinary user (rootless, when user namespaces are allowed).
// Host mode's lead and follower: tests/runner/host/host_fault_test.cc.
//
// Checked by state, not by the runner's word: with FABRICLAB_FAULT_STOP=1 the
// runner stops at the point before its kill, and the test reads what the
// phase has made (tests/support/kernel_state.h): the run's network namespaces
// by inode and cookie, the nft tables and qdiscs in them, the processes by pid and start
// time -- and that the phase's state is there (namespaces; ranks once
// launched; the impairment once applied). Then it lets the kill land, runs
// `fabriclab cleanup`, and checks those same objects are gone: no process
// and no mount anywhere holds one of the namespace inodes, no pid lives on
// with its start time, the root namespace has no fabriclab nft table and no
// qdisc the run added.
//
// Also checked on the names this run made, so a neighbour's live run on the
// same machine never fails it: its namespaces (fl-<id>-*), its processes
// (FABRICLAB_RUN_ID=<id>: ranks, iperf3), its ledger, and host interfaces
// named after it. `fabriclab cleanup` is run unscoped, as a student would:
// it acts only on ledgers whose runner is gone (a live run of the same user
// is left alone: CleanupLeavesALiveRunAlone).
#include <gtest/gtest.h>

#include <algorithm>
#include <signal.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/build_paths.h"
#include "tests/runner/lab_files.h"
#include "tests/runner/test_support.h"
#include "tests/support/child_process.h"
#include "tests/support/ci_skip.h"
#include "tests/support/kernel_features.h"
#include "tests/support/kernel_state.h"

namespace fabriclab::runner {
namespace {

using namespace std::chrono_literals;
using fabriclab::testing::ChildProcess;
using fabriclab::testing::ExitStatus;
using fabriclab::testing::run_command;
using testing::TempDir;
namespace ks = fabriclab::testing;

// Six steps of a small MLP: long enough for "mid_scenario" (2 steps), short
// enough that the scenario ends and the run reaches its teardown.
const char* const kTrainer =
    "[trainer]\nmodel = \"mlp\"\nwidth = 64\nsteps = 6\nbatch = 64\ntimeout_s = 30\n";

struct Variant {
  std::string name;
  std::string lab;  // [topology] and [[scenario]] TOML
  bool rootless = false;
  std::vector<std::string> points;
};

const std::vector<std::string> kEveryPoint = {"topology_built", "impairment_applied",
                                              "ranks_launched", "mid_scenario",
                                              "ranks_stopped",  "teardown"};

std::vector<Variant> variants() {
  const std::string two_ranks =
      "[topology]\nranks = 2\n"
      "[[scenario]]\nname = \"latency\"\ncondition = \"latency\"\nimpair = \"delay 2ms\"\n"
      "links = [\"all\"]\ndeadline_s = 60\nstall_s = 30\n";
  return {
      {"userspace_pair", two_ranks, false, kEveryPoint},
      {"switch_queue",
       "[topology]\nranks = 3\nkind = \"switch\"\n"
       "[[scenario]]\nname = \"queue\"\ncondition = \"queue\"\nranks = 2\n"
       "queue = \"rate 200mbit limit 64kb taildrop\"\nlinks = [\"r0\"]\n"
       "neighbours = [\"noisy r2->r0 rate 20mbit\"]\ndeadline_s = 60\nstall_s = 30\n",
       false, kEveryPoint},
      {"leaf_spine",
       "[topology]\nranks = 2\nkind = \"leaf_spine\"\nhost_links = \"rate 500mbit\"\n"
       "uplinks = \"delay 1ms rate 200mbit\"\n"
       "[[scenario]]\nname = \"apart\"\ncondition = \"apart\"\nplacement = [\"r0\", \"r1\"]\n"
       "deadline_s = 60\nstall_s = 30\n",
       false, kEveryPoint},
      {"rootless",
       two_ranks,
       true,
       {"topology_built", "ranks_launched", "mid_scenario", "teardown"}},
  };
}

struct Case {
  Variant variant;
  std::string point;
};

void PrintTo(const Case& c, std::ostream* out) { *out << c.variant.name << " at " << c.point; }

std::vector<Case> cases() {
  std::vector<Case> all;
  for (const Variant& v : variants())
    for (const std::string& point : v.points) all.push_back({v, point});
  return all;
}

// The run id: the suffix of the run directory's name (LAB-STAMP-ID).
std::string run_id_in(const std::string& output_dir) {
  std::error_code ignored;
  for (const auto& entry : std::filesystem::directory_iterator(output_dir, ignored)) {
    const std::string name = entry.path().filename();
    return name.substr(name.rfind('-') + 1);
  }
  return "";
}

std::vector<std::string> host_links_named(const std::string& run_id) {
  std::vector<std::string> found;
  for (const std::string& link : testing::host_links())
    if (link.find(run_id) != std::string::npos) found.push_back(link);
  return found;
}

class FaultMatrixTest : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    SKIP_UNLESS_NETNS_PRIVILEGES();
    labs_ = dir_.path() + "/labs";
    output_ = dir_.path() + "/runs";
    std::filesystem::create_directories(labs_ + "/92-faults");
    if (GetParam().variant.rootless) {
      // An ordinary user writes its run directory here.
      std::filesystem::permissions(dir_.path(), std::filesystem::perms::all);
      std::filesystem::permissions(labs_, std::filesystem::perms::all);
    }
    std::ofstream(labs_ + "/92-faults/lab.toml")
        << "[lab]\nid = \"92\"\ntitle = \"faults\"\nsummary = \"faults\"\n"
        << kTrainer << GetParam().variant.lab;
  }

  // argv as the variant's user: root, or uid 65534 through setpriv.
  std::vector<std::string> as_user(std::vector<std::string> argv) const {
    if (GetParam().variant.rootless)
      argv.insert(argv.begin(),
                  {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"});
    return argv;
  }

  std::string ledger_of(const std::string& run_id) const {
    return (GetParam().variant.rootless ? "/tmp/fabriclab-65534/runs/" : "/run/fabriclab/runs/") +
           run_id + ".json";
  }

  TempDir dir_;
  std::string labs_, output_;
};

// The points at which a scenario's impairment is on, and its ranks run.
bool impairment_on(const std::string& point) {
  return point == "impairment_applied" || point == "ranks_launched" || point == "mid_scenario" ||
         point == "ranks_stopped";
}
bool ranks_running(const std::string& point) {
  return point == "ranks_launched" || point == "mid_scenario";
}

// A qdisc line (kernel_state.h: "dev IF KIND HANDLE PARENT") of a kind a
// link has without any setting of fabriclab's.
bool default_qdisc(const std::string& line) {
  std::istringstream words(line);
  std::string dev, name, kind;
  words >> dev >> name >> kind;
  return kind == "noqueue" || kind == "pfifo_fast" || kind == "fq_codel" || kind == "mq";
}

// The impairment as the kernel holds it in the run's namespaces: the
// userspace backend's nft tables, or qdiscs a link does not have by itself.
std::vector<std::string> impairment_state(const ks::RunState& state) {
  std::vector<std::string> found;
  for (const auto& [path, tables] : state.tables)
    for (const std::string& table : tables) found.push_back(path + ": " + table);
  for (const auto& [path, lines] : state.qdiscs)
    for (const std::string& line : lines)
      if (!default_qdisc(line)) found.push_back(path + ": qdisc " + line);
  return found;
}

// The run's namespaces while its runner is stopped: those mounted under the
// names it gives them (fl-<id>-*; a rootless runner mounts them in its own
// mount namespace, seen through /proc/PID/root), and any its processes are
// in (the rootless runner's own), by inode. Not ours (the test's).
ks::NetnsByInode run_namespaces(pid_t runner, const std::string& run_id, bool rootless) {
  const std::string netns_dir =
      rootless ? "/proc/" + std::to_string(runner) + "/root/run/netns" : "/run/netns";
  ks::NetnsByInode found = ks::netns_mounted_in(netns_dir, "fl-" + run_id);
  std::vector<pid_t> pids = testing::marked_processes(run_id);
  pids.push_back(runner);
  for (const auto& [inode, path] : ks::netns_of_processes(pids))
    if (inode != ks::own_netns_inode()) found.emplace(inode, path);
  return found;
}

TEST_P(FaultMatrixTest, KilledRunIsCleanedUpCompletely) {
  const Case& c = GetParam();
  if (c.variant.rootless) {
    if (::geteuid() != 0)
      SKIP_OR_FAIL_IN_CI("needs root to switch to an ordinary user (setpriv)");
    // Asked of the kernel, not of the runner: its own check is under test.
    std::string why;
    if (!ks::user_namespaces_work(&why)) GTEST_SKIP() << why;
  }
  // The root namespace before the run: what the run adds there must go.
  const std::set<std::string> root_tables_before = ks::nft_tables();
  const std::set<std::string> root_qdiscs_before = ks::qdiscs();

  ChildProcess runner(
      as_user({fabriclab::build_paths::fabriclab_binary(), "run", "92", "--labs", labs_, "--output",
               output_, "--backend", "userspace", "--no-charts"}),
      {{"FABRICLAB_FAULT_AT", c.point}, {"FABRICLAB_FAULT_STOP", "1"}, {"XDG_RUNTIME_DIR", ""}},
      dir_.path() + "/out.txt");
  // Stopped at the point, the kill not landed yet: read what the phase made.
  ASSERT_TRUE(runner.wait_until_stopped(120s))
      << "the runner did not stop at " << c.point << "\n"
      << runner.output();
  const std::string run_id = run_id_in(output_);
  ASSERT_FALSE(run_id.empty()) << "no run directory\n" << runner.output();
  std::vector<pid_t> pids = testing::marked_processes(run_id);
  // The ranks run on while the runner is stopped, and six short steps can
  // end before this reads them (seen in a fresh-clone CI run: "no rank
  // beside the runner at mid_scenario"): an ended rank the stopped runner
  // has not reaped is still its child, with its pid and start time.
  for (pid_t child : ks::children_of(runner.pid(), /*with_zombies=*/true))
    if (std::find(pids.begin(), pids.end(), child) == pids.end()) pids.push_back(child);
  pids.push_back(runner.pid());
  const ks::RunState before_kill =
      ks::snapshot_run(run_namespaces(runner.pid(), run_id, c.variant.rootless), pids);
  const std::set<std::string> root_qdiscs_at_kill = ks::qdiscs();
  runner.signal(SIGCONT);
  std::cout << "state at " << c.point << ":\n" << before_kill.describe();

  EXPECT_FALSE(before_kill.namespaces.empty())
      << "no namespace of the run at " << c.point << "\n" << before_kill.describe();
  // Without its cookie a namespace would be checked by inode number alone,
  // which the kernel reuses: another test's new namespace would fail this one.
  for (const auto& [inode, cookie] : before_kill.cookies)
    EXPECT_NE(cookie, 0u) << "no cookie for namespace " << inode << "\n" << before_kill.describe();
  if (ranks_running(c.point)) {
    EXPECT_GT(before_kill.processes.size(), 1u)
        << "no rank beside the runner at " << c.point << "\n" << before_kill.describe();
  }
  if (impairment_on(c.point)) {
    EXPECT_FALSE(impairment_state(before_kill).empty())
        << "no nft table or qdisc of the impairment at " << c.point << "\n"
        << before_kill.describe();
  }

  const ExitStatus status = runner.wait(120s);
  ASSERT_EQ(status.signal, SIGKILL) << "the runner did not die at " << c.point << "\n"
                                    << runner.output();
  ASSERT_NE(runner.output().find("fault point " + c.point + ": SIGKILL"), std::string::npos)
      << runner.output();
  // What the kill left for cleanup: at least the ledger (a run starting on
  // this machine in between may have cleaned it already: then it is gone).
  const bool ledger_left = std::filesystem::exists(ledger_of(run_id));
  // As root the namespaces are mounted under /run/netns and outlive the
  // runner at every point: cleanup has them to remove.
  if (!c.variant.rootless && ledger_left) {
    EXPECT_FALSE(testing::run_netns_entries("fl-" + run_id).empty())
        << "the kill left nothing to clean up?";
  }

  // On a shared machine another user's run may start in between and clean
  // this one first (every run starts with the same sweep of dead runs):
  // what counts is that nothing is left afterwards.
  auto cleanup = run_command(as_user({fabriclab::build_paths::fabriclab_binary(), "cleanup"}),
                             {{"XDG_RUNTIME_DIR", ""}}, 60s);
  EXPECT_EQ(cleanup.status.code, 0) << cleanup.output;
  if (ledger_left && cleanup.output.find("run " + run_id) == std::string::npos)
    std::cout << "run " << run_id
              << " was cleaned before `fabriclab cleanup` ran (another run's start)\n";

  // Processes take a moment to be reaped (120 s: a hang guard, not a bound).
  const auto any_alive = [&] {
    for (const ks::ProcessIdentity& p : before_kill.processes)
      if (ks::process_alive(p)) return true;
    return !testing::marked_processes(run_id).empty();
  };
  const auto give_up = std::chrono::steady_clock::now() + 120s;
  while (any_alive() && std::chrono::steady_clock::now() < give_up)
    std::this_thread::sleep_for(100ms);
  for (const ks::ProcessIdentity& p : before_kill.processes)
    EXPECT_FALSE(ks::process_alive(p)) << "process " << p.pid << " of the run left";
  EXPECT_TRUE(testing::marked_processes(run_id).empty()) << "processes of the run left";

  // The same namespaces (inode and cookie): nothing anywhere holds one any more.
  for (const std::string& holder : before_kill.namespaces_left())
    ADD_FAILURE() << "a namespace of the run is left: " << holder << "\n"
                  << before_kill.describe();
  EXPECT_TRUE(testing::run_netns_entries("fl-" + run_id).empty()) << "namespaces of the run left";

  // The root namespace: no fabriclab nft table that was not there before the
  // run, no qdisc the run added.
  for (const std::string& table : ks::added(root_tables_before, ks::nft_tables()))
    EXPECT_EQ(table.find("fabriclab"), std::string::npos) << "nft table left: " << table;
  const std::set<std::string> root_qdiscs_now = ks::qdiscs();
  for (const std::string& qdisc : ks::added(root_qdiscs_before, root_qdiscs_at_kill))
    EXPECT_EQ(root_qdiscs_now.count(qdisc), 0u) << "qdisc the run added left: " << qdisc;
  EXPECT_TRUE(host_links_named(run_id).empty()) << "host interfaces of the run left";
  EXPECT_FALSE(std::filesystem::exists(ledger_of(run_id))) << "ledger left\n" << cleanup.output;
}

INSTANTIATE_TEST_SUITE_P(PhasesAndLabs, FaultMatrixTest, ::testing::ValuesIn(cases()),
                         [](const auto& info) {
                           return info.param.variant.name + "_" + info.param.point;
                         });

// `fabriclab cleanup` beside a live run: the killed run's leftovers go, the
// live run's namespaces and ranks stay, and it still ends normally.
TEST(FaultCleanup, CleanupLeavesALiveRunAlone) {
  SKIP_UNLESS_NETNS_PRIVILEGES();
  TempDir dir;
  const std::string labs = dir.path() + "/labs";
  std::filesystem::create_directories(labs + "/92-faults");
  std::ofstream(labs + "/92-faults/lab.toml")
      << "[lab]\nid = \"92\"\ntitle = \"faults\"\nsummary = \"faults\"\n"
      << "[trainer]\nmodel = \"mlp\"\nwidth = 64\nsteps = 100000\nbatch = 64\ntimeout_s = 30\n"
      << "[topology]\nranks = 2\n"
      << "[[scenario]]\nname = \"clean\"\ncondition = \"clean\"\ndeadline_s = 300\nstall_s = 60\n";
  const auto run_argv = [&](const std::string& output) {
    return std::vector<std::string>{fabriclab::build_paths::fabriclab_binary(),
                                    "run",
                                    "92",
                                    "--labs",
                                    labs,
                                    "--output",
                                    output,
                                    "--no-charts"};
  };
  ChildProcess live(run_argv(dir.path() + "/live"), {}, dir.path() + "/live.txt");
  ASSERT_TRUE(testing::wait_for_training(dir.path() + "/live", 60s)) << live.output();
  const std::string live_id = run_id_in(dir.path() + "/live");

  auto killed =
      run_command(run_argv(dir.path() + "/killed"), {{"FABRICLAB_FAULT_AT", "mid_scenario"}}, 120s);
  ASSERT_EQ(killed.status.signal, SIGKILL) << killed.output;
  const std::string killed_id = run_id_in(dir.path() + "/killed");
  ASSERT_FALSE(killed_id.empty());

  auto cleanup = run_command({fabriclab::build_paths::fabriclab_binary(), "cleanup"}, {}, 60s);
  EXPECT_EQ(cleanup.status.code, 0) << cleanup.output;
  EXPECT_EQ(cleanup.output.find("run " + live_id + " ("), std::string::npos)
      << "cleanup acted on the live run\n"
      << cleanup.output;
  EXPECT_NE(cleanup.output.find("run " + live_id + ": in progress"), std::string::npos)
      << cleanup.output;
  EXPECT_EQ(testing::run_netns_entries("fl-" + live_id).size(), 2u)
      << "the live run lost namespaces";
  EXPECT_FALSE(testing::marked_processes(live_id).empty()) << "the live run lost its ranks";
  EXPECT_TRUE(testing::run_netns_entries("fl-" + killed_id).empty());

  // Still training after the cleanup; it ends as a run does on Ctrl-C.
  live.signal(SIGINT);
  const ExitStatus status = live.wait(60s);
  EXPECT_EQ(status.code, 1) << live.output();
  const nlohmann::json run = testing::read_run_json(dir.path() + "/live");
  ASSERT_FALSE(run.is_null()) << live.output();
  EXPECT_EQ(run["scenarios"][0]["status"], "interrupted") << live.output();
  EXPECT_TRUE(testing::run_netns_entries("fl-" + live_id).empty());
  EXPECT_TRUE(testing::marked_processes(live_id).empty());
}

}  // namespace
}  // namespace fabriclab::runner
