// `fabriclab cleanup --iface` and host mode's guardian, on a veth in a
// namespace of the test's own: fabriclab's root qdisc (handle fab0:) and its
// nft tables for the device are removed, anything else is left alone; and the
// guardian removes the qdisc once the process that started it is SIGKILLed.
// (This kernel has no sch_netem: an htb root with fabriclab's handle stands
// in for the netem backend's peer-filter tree, which is an htb root too.)
#include "common/build_paths.h"
#include "runner/cleanup/impairment_guardian.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "tests/runner/test_support.h"
#include "tests/support/child_process.h"

namespace fabriclab::runner {
namespace {

using fabriclab::testing::run_command;
using namespace std::chrono_literals;

class InterfaceCleanupTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SKIP_UNLESS_NETNS_PRIVILEGES();
    ASSERT_TRUE(sh({"ip", "netns", "add", ns_}));
    ASSERT_TRUE(sh({"ip", "-n", ns_, "link", "add", "vx", "type", "veth", "peer", "name", "vy"}));
    ASSERT_TRUE(sh({"ip", "-n", ns_, "link", "set", "vx", "up"}));
  }
  void TearDown() override { sh({"ip", "netns", "del", ns_}); }

  static bool sh(std::vector<std::string> argv) {
    argv[0] = "/usr/sbin/" + argv[0];
    return run_command(argv).status.code == 0;
  }
  std::string in_ns(std::vector<std::string> argv) const {
    argv.insert(argv.begin(), {"/usr/sbin/ip", "netns", "exec", ns_});
    return run_command(argv).output;
  }
  std::string qdiscs() const { return in_ns({"/usr/sbin/tc", "qdisc", "show", "dev", "vx"}); }
  std::string tables() const { return in_ns({"/usr/sbin/nft", "list", "tables"}); }
  fabriclab::testing::RunResult cleanup() const {
    return run_command(
        {fabriclab::build_paths::fabriclab_binary(), "cleanup", "--iface", "vx", "--netns", ns_});
  }

  const std::string ns_ = "fclean-" + std::to_string(::getpid());
};

TEST_F(InterfaceCleanupTest, RemovesFabriclabsQdiscAndTablesOnly) {
  ASSERT_TRUE(sh({"tc", "-n", ns_, "qdisc", "add", "dev", "vx", "root", "handle", "fab0:", "htb",
                  "default", "1"}));
  ASSERT_TRUE(
      sh({"ip", "netns", "exec", ns_, "/usr/sbin/nft", "add", "table", "ip", "fabriclab_vx_in"}));
  ASSERT_TRUE(
      sh({"ip", "netns", "exec", ns_, "/usr/sbin/nft", "add", "table", "ip", "someone_else"}));
  auto r = cleanup();
  EXPECT_EQ(r.status.code, 0) << r.output;
  EXPECT_EQ(qdiscs().find("fab0:"), std::string::npos) << qdiscs();
  EXPECT_EQ(tables().find("fabriclab_vx_in"), std::string::npos) << tables();
  EXPECT_NE(tables().find("someone_else"), std::string::npos) << tables();
}

TEST_F(InterfaceCleanupTest, LeavesAnotherRootQdiscAlone) {
  ASSERT_TRUE(sh({"tc", "-n", ns_, "qdisc", "add", "dev", "vx", "root", "handle", "1:", "htb",
                  "default", "1"}));
  auto r = cleanup();
  EXPECT_EQ(r.status.code, 0) << r.output;
  EXPECT_NE(r.output.find("not fabriclab's"), std::string::npos) << r.output;
  EXPECT_NE(qdiscs().find("htb 1:"), std::string::npos) << qdiscs();
}

TEST_F(InterfaceCleanupTest, GuardianRemovesTheQdiscWhenItsRunnerIsKilled) {
  ASSERT_TRUE(sh({"tc", "-n", ns_, "qdisc", "add", "dev", "vx", "root", "handle", "fab0:", "htb",
                  "default", "1"}));
  // A stand-in runner: starts a guardian, then waits to be killed.
  const pid_t runner = ::fork();
  ASSERT_GE(runner, 0);
  if (runner == 0) {
    ImpairmentGuardian guardian("vx", ns_, fabriclab::build_paths::fabriclab_binary());
    ::pause();
    ::_exit(0);
  }
  std::this_thread::sleep_for(500ms);
  EXPECT_NE(qdiscs().find("fab0:"), std::string::npos) << "guardian acted while its runner lives";
  ::kill(runner, SIGKILL);
  ::waitpid(runner, nullptr, 0);
  // 120 s only stops a hang: how soon the guardian acts is not a check.
  const auto give_up = std::chrono::steady_clock::now() + 120s;
  while (qdiscs().find("fab0:") != std::string::npos && std::chrono::steady_clock::now() < give_up)
    std::this_thread::sleep_for(100ms);
  EXPECT_EQ(qdiscs().find("fab0:"), std::string::npos) << "qdisc still there after the kill";
}

}  // namespace
}  // namespace fabriclab::runner
