// After a SIGKILL of the runner, `fabriclab cleanup` removes exactly what the
// run recorded: its namespaces and every process of its rank's group -- and
// nothing else (an unrelated namespace and an unrelated process survive).
#include <gtest/gtest.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>

#include <thread>

#include "common/build_paths.h"
#include "runner/cleanup/stale_runs.h"
#include "runner/ledger/run_id.h"
#include "runner/process/process.h"
#include "runner/topology/network_namespace.h"
#include "tests/runner/test_support.h"

namespace fabriclab::runner {
namespace {

using std::chrono::milliseconds;
using testing::TempDir;

std::string run_command(const std::string& command, int* exit_code) {
  std::string output;
  FILE* pipe = ::popen(command.c_str(), "r");
  char buffer[512];
  while (size_t n = std::fread(buffer, 1, sizeof(buffer), pipe)) output.append(buffer, n);
  int status = ::pclose(pipe);
  *exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return output;
}

TEST(Cleanup, AfterSigkillRemovesExactlyWhatTheRunRecorded) {
  SKIP_UNLESS_NETNS_PRIVILEGES();
  TempDir ledger_dir;
  const std::string run_id = make_run_id();
  const std::string prefix = "fl-" + run_id + "-";
  // Whatever fails below, the run is cleaned up before the ledger directory
  // goes (in-process, in case the CLI is the broken part).
  struct FinalCleanup {
    std::string dir;
    ~FinalCleanup() { clean_stale_runs({dir, false}); }
  } final_cleanup{ledger_dir.path()};

  // Unrelated things that must survive: a namespace and a process.
  const std::string unrelated_name = "fl-test-" + std::to_string(::getpid()) + "-keep";
  NetworkNamespace unrelated_ns = NetworkNamespace::create(unrelated_name, netns_mount_dir());
  LaunchSpec sleeper;
  sleeper.argv = {"/bin/sh", "-c", "exec sleep 100"};
  Process unrelated_process = Process::launch(sleeper);

  // A "runner" that builds a 3-rank topology and a rank with a child, then
  // is SIGKILLed before it can clean up.
  int out[2];
  ASSERT_EQ(::pipe(out), 0);
  LaunchSpec probe;
  probe.argv = {RUNNER_PROBE, "hold", ledger_dir.path(), run_id, "3"};
  probe.stdout_stream = Redirect::to_fd(out[1]);
  Process runner = Process::launch(probe);
  ::close(out[1]);
  char line[64] = {};
  ASSERT_GT(::read(out[0], line, sizeof(line) - 1), 0) << "the probe did not get ready";
  ::close(out[0]);
  ASSERT_EQ(std::string(line).rfind("ready ", 0), 0u) << line;
  EXPECT_EQ(testing::run_netns_entries(prefix).size(), 4u);
  runner.signal(SIGKILL);
  EXPECT_EQ(runner.wait().signal, SIGKILL);

  // The rank's own process died with the runner (PDEATHSIG), but the child it
  // started did not: it is still in the rank's group, carrying the marker.
  // (The rank's own death takes as long as the machine makes it: awaited.)
  EXPECT_TRUE(testing::eventually([&] { return testing::marked_processes(run_id).size() == 1; }))
      << testing::marked_processes(run_id).size() << " processes";
  EXPECT_EQ(testing::run_netns_entries(prefix).size(), 4u);
  const std::string ledger_path = ledger_dir.path() + "/" + run_id + ".json";
  ASSERT_TRUE(std::filesystem::exists(ledger_path));

  int code = -1;
  std::string dry = run_command(std::string(fabriclab::build_paths::fabriclab_binary()) +
                                    " cleanup --dry-run --dir " + ledger_dir.path() + " 2>&1",
                                &code);
  EXPECT_EQ(code, 0) << dry;
  EXPECT_NE(dry.find("would remove"), std::string::npos) << dry;
  EXPECT_NE(dry.find("would kill"), std::string::npos) << dry;
  EXPECT_EQ(testing::run_netns_entries(prefix).size(), 4u);

  std::string report = run_command(std::string(fabriclab::build_paths::fabriclab_binary()) +
                                       " cleanup --dir " + ledger_dir.path() + " 2>&1",
                                   &code);
  EXPECT_EQ(code, 0) << report;
  for (const char* rank : {"r0", "r1", "r2", "sw"}) {
    EXPECT_NE(report.find("/run/netns/" + prefix + rank + ": removed"), std::string::npos)
        << report;
  }
  EXPECT_NE(report.find("killed"), std::string::npos) << report;
  EXPECT_TRUE(testing::run_netns_entries(prefix).empty());
  EXPECT_TRUE(testing::marked_processes(run_id).empty());
  EXPECT_FALSE(std::filesystem::exists(ledger_path));

  // ... and nothing else.
  EXPECT_EQ(testing::run_netns_entries(unrelated_name).size(), 1u);
  EXPECT_FALSE(unrelated_process.poll().has_value());

  report = run_command(std::string(fabriclab::build_paths::fabriclab_binary()) + " cleanup --dir " +
                           ledger_dir.path() + " 2>&1",
                       &code);
  EXPECT_NE(report.find("nothing left over"), std::string::npos) << report;
}

}  // namespace
}  // namespace fabriclab::runner
