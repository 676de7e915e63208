// Rootless mode as an ordinary user (uid 65534, via setpriv): the probe
// enters a user namespace, builds a 3-rank topology, pings across the bridge
// and tears down; and after a SIGKILL, cleanup as that user leaves nothing
// of it, checked by state (tests/support/kernel_state.h): the processes by
// pid and start time, the namespaces by inode. Whether this machine allows
// user namespaces is asked of the kernel (kernel_features.h), never of the
// probe's own check under test: a regression there fails, it does not skip.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <set>
#include <filesystem>

#include "runner/process/process.h"
#include "runner/topology/user_namespace.h"
#include "tests/runner/test_support.h"
#include "tests/support/ci_skip.h"
#include "tests/support/kernel_features.h"
#include "tests/support/kernel_state.h"

namespace fabriclab::runner {
namespace {

using testing::TempDir;
namespace ks = fabriclab::testing;

// Skips unless root (to become an ordinary user: setup provides it) and
// unless the kernel lets that user create user namespaces (a kernel's
// setting, not setup's: a plain skip).
#define SKIP_UNLESS_ROOTLESS_POSSIBLE()                                         \
  do {                                                                          \
    if (::geteuid() != 0)                                                       \
      SKIP_OR_FAIL_IN_CI("needs root to switch to an ordinary user (setpriv)"); \
    std::string why_not;                                                        \
    if (!ks::user_namespaces_work(&why_not)) GTEST_SKIP() << why_not;           \
  } while (0)

ExitStatus run_as_nobody(std::vector<std::string> argv, const std::string& out_path) {
  LaunchSpec spec;
  spec.argv = {"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"};
  spec.argv.insert(spec.argv.end(), argv.begin(), argv.end());
  spec.env["XDG_RUNTIME_DIR"] = "";  // nobody has none: the ledger goes to /tmp
  spec.stdout_stream = Redirect::file(out_path);
  spec.stderr_stream = Redirect::append(out_path);
  return Process::launch(spec).wait();
}

TEST(Rootless, AnOrdinaryUserBuildsAndPingsATopology) {
  SKIP_UNLESS_ROOTLESS_POSSIBLE();
  TempDir dir;
  ::chmod(dir.path().c_str(), 0777);
  const std::string out = dir.path() + "/out";
  ExitStatus status = run_as_nobody({RUNNER_PROBE, "ping", "3"}, out);
  std::string text = testing::read_file(out);
  ASSERT_TRUE(status.success()) << status.describe() << "\n" << text;
  EXPECT_NE(text.find("mode rootless"), std::string::npos) << text;
  EXPECT_NE(text.find("ping ok"), std::string::npos) << text;
  EXPECT_NE(text.find("entries left 0"), std::string::npos) << text;
  EXPECT_NE(text.find("ledger /tmp/fabriclab-65534/runs/"), std::string::npos) << text;
}

TEST(Rootless, AfterSigkillCleanupAsTheSameUserKillsWhatIsLeft) {
  SKIP_UNLESS_ROOTLESS_POSSIBLE();
  TempDir dir;
  ::chmod(dir.path().c_str(), 0777);
  const std::string run_id = "rl" + std::to_string(::getpid() % 100000);
  int out[2];
  ASSERT_EQ(::pipe(out), 0);
  LaunchSpec spec;
  spec.argv = {"setpriv",    "--reuid=65534", "--regid=65534", "--clear-groups", "--",
               RUNNER_PROBE, "hold",          dir.path(),      run_id,           "3"};
  spec.stdout_stream = Redirect::to_fd(out[1]);
  Process runner = Process::launch(spec);
  ::close(out[1]);
  char line[64] = {};
  ASSERT_GT(::read(out[0], line, sizeof(line) - 1), 0) << "the probe did not get ready";
  ::close(out[0]);
  // "ready <leader pid>": what the kill will leave, by identity -- the
  // leader (sh), its grandchild (sleep), and the namespaces: the probe's own
  // (it unshared one) and the rank's, mounted in its own mount namespace.
  const pid_t leader = std::atoi(line + std::strlen("ready "));
  ASSERT_GT(leader, 0) << line;
  std::vector<pid_t> pids = ks::children_of(leader);
  pids.push_back(leader);
  ks::NetnsByInode namespaces = ks::netns_of_processes({runner.pid(), leader});
  namespaces.erase(ks::own_netns_inode());
  for (const auto& [inode, path] :
       ks::netns_mounted_in("/proc/" + std::to_string(runner.pid()) + "/root/run/netns", ""))
    namespaces.emplace(inode, path);
  const ks::RunState before_kill = ks::snapshot_run(namespaces, pids);
  ASSERT_EQ(before_kill.processes.size(), 2u) << "leader and sleeper\n" << before_kill.describe();
  // The probe's own namespace and at least one rank's, apart from it.
  ASSERT_GE(before_kill.namespaces.size(), 2u) << before_kill.describe();
  runner.signal(SIGKILL);
  runner.wait();
  const std::string ledger = dir.path() + "/" + run_id + ".json";
  ASSERT_TRUE(std::filesystem::exists(ledger));

  const std::string report_path = dir.path() + "/report";
  ExitStatus status = run_as_nobody({RUNNER_PROBE, "cleanup", dir.path()}, report_path);
  std::string report = testing::read_file(report_path);
  EXPECT_TRUE(status.success()) << status.describe() << "\n" << report;
  // Which words depends on whether the kernel had already ended the leader
  // (its parent-death signal) when cleanup looked; the state below decides.
  EXPECT_TRUE(report.find("killed 1 process(es) left in its group") != std::string::npos ||
              report.find("killed its process group") != std::string::npos)
      << report;
  EXPECT_NE(report.find("went with the runner's user namespace"), std::string::npos) << report;
  EXPECT_FALSE(std::filesystem::exists(ledger));
  // The state, not the report: the same processes and namespaces are gone.
  for (const ks::ProcessIdentity& p : before_kill.processes)
    EXPECT_FALSE(ks::process_alive(p)) << "process " << p.pid << " left\n" << report;
  for (const std::string& holder : before_kill.namespaces_left())
    ADD_FAILURE() << "a namespace of the probe is left: " << holder << "\n"
                  << before_kill.describe();
}

TEST(Rootless, DoctorCheckAnswersForThisUser) {
  UserNamespaceCheck check = check_user_namespaces();
  EXPECT_FALSE(check.detail.empty());
  if (check.allowed)
    EXPECT_EQ(check.detail.rfind("yes", 0), 0u) << check.detail;
  else
    EXPECT_EQ(check.detail.rfind("no", 0), 0u) << check.detail;
}

}  // namespace
}  // namespace fabriclab::runner
