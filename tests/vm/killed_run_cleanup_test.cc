// A runner SIGKILLed while its netem impairment is on a lab link, then
// `fabriclab cleanup`: on a kernel with sch_netem (the test VM, tests/vm/),
// the real qdisc, the namespaces and the rank processes the killed run left
// must all go, and nothing else may be touched. On the host the same path
// runs with an htb stand-in (tests/runner/cleanup/); only here is the thing
// removed a real netem qdisc holding real packets.
#include <dirent.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include "common/build_paths.h"
#include "tests/netem/lab_netns.h"
#include "tests/support/child_process.h"

namespace fabriclab {
namespace {

using namespace std::chrono_literals;
using netem::testing::shell;

// Namespaces under /run/netns whose names start with `prefix`.
std::vector<std::string> namespaces(const std::string& prefix) {
  std::vector<std::string> out;
  std::istringstream in(shell("ip netns list"));
  for (std::string line; std::getline(in, line);) {
    std::string name = line.substr(0, line.find(' '));
    if (name.rfind(prefix, 0) == 0) out.push_back(name);
  }
  return out;
}

// Processes running fabriclab's binary, other than `except`.
std::vector<pid_t> fabriclab_processes(pid_t except) {
  std::vector<pid_t> out;
  DIR* proc = opendir("/proc");
  while (dirent* e = proc ? readdir(proc) : nullptr) {
    pid_t pid = std::atoi(e->d_name);
    if (pid <= 0 || pid == except) continue;
    std::ifstream cmd("/proc/" + std::to_string(pid) + "/cmdline");
    std::string argv0;
    std::getline(cmd, argv0, '\0');
    if (argv0 == fabriclab::build_paths::fabriclab_binary()) out.push_back(pid);
  }
  if (proc) closedir(proc);
  return out;
}

// The first lab namespace with a netem qdisc on one of its devices, or "".
std::string namespace_with_netem() {
  for (const std::string& ns : namespaces("fl-"))
    if (shell("tc -n " + ns + " qdisc show").find("qdisc netem") != std::string::npos) return ns;
  return "";
}

TEST(KilledRunInVm, CleanupRemovesTheRealNetemQdiscTheNamespacesAndTheRanks) {
  if (!std::getenv("FABRICLAB_IN_VM"))
    GTEST_SKIP() << "runs inside the test VM, on a kernel with sch_netem (tests/vm/README.md)";
  ASSERT_TRUE(namespaces("fl-").empty()) << "lab namespaces before the run";
  const std::string dir = testing::make_temp_dir("fl-vm-kill");

  // Lab 02's latency scenario only: delay 100ms on a lab link from the start
  // (seed 9 draws the added latency's first choice, 100ms).
  testing::ChildProcess runner(
      {fabriclab::build_paths::fabriclab_binary(), "run", "02", "--quick", "--backend", "netem",
       "--scenario", "latency", "--seed", "9", "--output", dir, "--no-charts", "--labs",
       std::string(fabriclab::build_paths::source_dir()) + "/labs"},
      {}, dir + "/runner.log");
  std::string impaired;
  auto deadline = std::chrono::steady_clock::now() + 240s;
  while (impaired.empty() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(500ms);
    impaired = namespace_with_netem();
  }
  ASSERT_FALSE(impaired.empty()) << "no netem qdisc appeared in a lab namespace:\n"
                                 << runner.output();
  std::string qdiscs = shell("tc -n " + impaired + " qdisc show");
  EXPECT_NE(qdiscs.find("delay 100ms"), std::string::npos) << qdiscs;

  runner.signal(SIGKILL);
  testing::ExitStatus killed = runner.wait(600s);  // counted from the start
  ASSERT_TRUE(killed.exited);
  ASSERT_EQ(killed.signal, SIGKILL) << "the runner ended by itself first:\n" << runner.output();
  EXPECT_FALSE(namespaces("fl-").empty()) << "nothing left to clean: the test proves nothing";

  int st = -1;
  std::string out =
      shell(std::string(fabriclab::build_paths::fabriclab_binary()) + " cleanup 2>&1", &st);
  EXPECT_EQ(st, 0) << out;
  EXPECT_TRUE(namespaces("fl-").empty()) << shell("ip netns list") << out;
  EXPECT_EQ(namespace_with_netem(), "");
  // Ranks that were starting when the runner died are gone too.
  deadline = std::chrono::steady_clock::now() + 120s;  // a hang guard, not a bound
  while (!fabriclab_processes(getpid()).empty() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(200ms);
  EXPECT_TRUE(fabriclab_processes(getpid()).empty()) << out;
  // Nothing left for a second cleanup.
  out = shell(std::string(fabriclab::build_paths::fabriclab_binary()) + " cleanup --dry-run 2>&1",
              &st);
  EXPECT_EQ(st, 0) << out;
  EXPECT_EQ(out.find("would remove"), std::string::npos) << out;
  shell("rm -rf " + dir);
}

}  // namespace
}  // namespace fabriclab
