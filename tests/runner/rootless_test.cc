// Rootless mode as an ordinary user (uid 65534, via setpriv): the probe
// enters a user namespace, builds a 3-rank topology, pings across the bridge
// and tears down. Skips with the reason when this machine cannot do it.
#include <gtest/gtest.h>

#include "runner/process/process.h"
#include "runner/topology/user_namespace.h"
#include "tests/runner/test_support.h"

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
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to switch to an ordinary user (setpriv)";
  TempDir dir;
  ::chmod(dir.path().c_str(), 0777);
  const std::string out = dir.path() + "/out";
  ExitStatus status = run_as_nobody({RUNNER_PROBE, "ping", "3"}, out);
  std::string text = testing::read_file(out);
  if (text.find("cannot enter a user namespace") != std::string::npos) {
    GTEST_SKIP() << "user namespaces not allowed here: " << text;
  }
  ASSERT_TRUE(status.success()) << status.describe() << "\n" << text;
  EXPECT_NE(text.find("mode rootless"), std::string::npos) << text;
  EXPECT_NE(text.find("ping ok"), std::string::npos) << text;
  EXPECT_NE(text.find("entries left 0"), std::string::npos) << text;
  EXPECT_NE(text.find("ledger /tmp/fabriclab-65534/runs/"), std::string::npos) << text;
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
