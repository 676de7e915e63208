// Rootless mode as an ordinary user (uid 65534, via setpriv): the probe
// enters a user namespace, builds a 3-rank topology, pings across the bridge
// and tears down. Skips with the reason when this machine cannot do it.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <csignal>
#include <filesystem>

#include "runner/process/process.h"
#include "runner/topology/user_namespace.h"
#include "tests/runner/test_support.h"
#include "tests/support/ci_skip.h"

namespace fabriclab::runner {
namespace {

using testing::TempDir;

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
  if (::geteuid() != 0) SKIP_OR_FAIL_IN_CI("needs root to switch to an ordinary user (setpriv)");
  TempDir dir;
  ::chmod(dir.path().c_str(), 0777);
  const std::string out = dir.path() + "/out";
  ExitStatus status = run_as_nobody({RUNNER_PROBE, "ping", "3"}, out);
  std::string text = testing::read_file(out);
  if (text.find("cannot enter a user namespace") != std::string::npos) {
    SKIP_OR_FAIL_IN_CI("user namespaces not allowed here: " << text);
  }
  ASSERT_TRUE(status.success()) << status.describe() << "\n" << text;
  EXPECT_NE(text.find("mode rootless"), std::string::npos) << text;
  EXPECT_NE(text.find("ping ok"), std::string::npos) << text;
  EXPECT_NE(text.find("entries left 0"), std::string::npos) << text;
  EXPECT_NE(text.find("ledger /tmp/fabriclab-65534/runs/"), std::string::npos) << text;
}

TEST(Rootless, AfterSigkillCleanupAsTheSameUserKillsWhatIsLeft) {
  if (::geteuid() != 0) SKIP_OR_FAIL_IN_CI("needs root to switch to an ordinary user (setpriv)");
  if (!check_user_namespaces().allowed) SKIP_OR_FAIL_IN_CI(check_user_namespaces().detail);
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
  runner.signal(SIGKILL);
  runner.wait();
  const std::string ledger = dir.path() + "/" + run_id + ".json";
  ASSERT_TRUE(std::filesystem::exists(ledger));

  const std::string report_path = dir.path() + "/report";
  ExitStatus status = run_as_nobody({RUNNER_PROBE, "cleanup", dir.path()}, report_path);
  std::string report = testing::read_file(report_path);
  EXPECT_TRUE(status.success()) << status.describe() << "\n" << report;
  EXPECT_NE(report.find("killed 1 process(es) left in its group"), std::string::npos) << report;
  EXPECT_NE(report.find("went with the runner's user namespace"), std::string::npos) << report;
  EXPECT_FALSE(std::filesystem::exists(ledger));
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
