// The launcher with real processes (sh, sleep): environment, streams, exit
// decoding, signals, process groups, kill-on-destroy, death with the parent,
// and the ledger entry. No privileges needed except for the namespace case.
#include "runner/process/process.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/wait.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>

#include "common/process_identity.h"
#include "runner/process/recorded_process.h"
#include "runner/process/stop_signals.h"
#include "tests/runner/test_support.h"

namespace fabriclab::runner {
namespace {

using std::chrono::milliseconds;
using testing::TempDir;
namespace fs = std::filesystem;

LaunchSpec shell(const std::string& script) {
  LaunchSpec spec;
  spec.argv = {"/bin/sh", "-c", script};
  spec.label = "test shell";
  return spec;
}

TEST(ExitStatus, DescribesCodesAndSignals) {
  EXPECT_EQ(ExitStatus::from_wait_status(0).describe(), "exited with code 0");
  EXPECT_TRUE(ExitStatus::from_wait_status(0).success());
  EXPECT_EQ(ExitStatus::from_wait_status(3 << 8).describe(), "exited with code 3");
  ExitStatus killed = ExitStatus::from_wait_status(SIGKILL);
  EXPECT_TRUE(killed.signaled);
  EXPECT_EQ(killed.signal, SIGKILL);
  EXPECT_EQ(killed.describe(), "killed by signal 9 (SIGKILL, Killed)");
  EXPECT_EQ(signal_name(SIGTERM), "SIGTERM");
}

TEST(Process, EnvironmentReachesTheChild) {
  TempDir dir;
  LaunchSpec spec = shell(
      "echo \"$MASTER_ADDR $MASTER_PORT $RANK $WORLD_SIZE $LOCAL_RANK $EXTRA ${HOME:+home}\"");
  spec.env = torchrun_environment("10.77.0.1", 29500, 1, 2, 0, 1);
  spec.env["EXTRA"] = "x y";
  spec.stdout_stream = Redirect::file(dir.path() + "/out");
  ASSERT_TRUE(Process::launch(spec).wait().success());
  // HOME comes from the runner's own environment (inherit_environment).
  EXPECT_EQ(testing::read_file(dir.path() + "/out"), "10.77.0.1 29500 1 2 0 x y home\n");

  spec.inherit_environment = false;
  ASSERT_TRUE(Process::launch(spec).wait().success());
  EXPECT_EQ(testing::read_file(dir.path() + "/out"), "10.77.0.1 29500 1 2 0 x y \n");
}

TEST(Process, StreamsGoToFilesAndPipes) {
  TempDir dir;
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  LaunchSpec spec = shell("echo out; echo err >&2; cat");  // cat: stdin is /dev/null
  spec.stdout_stream = Redirect::to_fd(pipe_fds[1]);
  spec.stderr_stream = Redirect::append(dir.path() + "/err");
  Process process = Process::launch(spec);
  ::close(pipe_fds[1]);
  char buffer[64] = {};
  std::string out;
  ssize_t n;
  while ((n = ::read(pipe_fds[0], buffer, sizeof(buffer))) > 0) out.append(buffer, n);
  ::close(pipe_fds[0]);
  EXPECT_TRUE(process.wait().success());
  EXPECT_EQ(out, "out\n");
  EXPECT_EQ(testing::read_file(dir.path() + "/err"), "err\n");
}

TEST(Process, ExitCodesAndSignalsAreDecoded) {
  ExitStatus code = Process::launch(shell("exit 3")).wait();
  EXPECT_TRUE(code.exited);
  EXPECT_EQ(code.code, 3);
  EXPECT_EQ(code.describe(), "exited with code 3");

  ExitStatus signaled = Process::launch(shell("kill -USR1 $$")).wait();
  EXPECT_TRUE(signaled.signaled);
  EXPECT_EQ(signaled.signal, SIGUSR1);
  EXPECT_NE(signaled.describe().find("SIGUSR1"), std::string::npos) << signaled.describe();
}

TEST(Process, PollDoesNotBlockAndPidfdSignalsTheEnd) {
  // The child ends when the test says so, not after a sleep the test would
  // have to outrun.
  TempDir dir;
  const std::string go = dir.path() + "/go";
  Process process = Process::launch(shell("until [ -e '" + go + "' ]; do sleep 0.01; done"));
  EXPECT_TRUE(process.running());
  EXPECT_FALSE(process.poll().has_value());
  ASSERT_GE(process.pidfd(), 0);
  std::ofstream(go).put('\n');
  pollfd ready{process.pidfd(), POLLIN, 0};
  EXPECT_EQ(::poll(&ready, 1, -1), 1);
  auto status = process.poll();
  ASSERT_TRUE(status.has_value());
  EXPECT_TRUE(status->success());
  EXPECT_FALSE(process.running());
  EXPECT_TRUE(process.poll()->success());  // remembered
}

TEST(Process, TerminateUsesSigtermThenSigkill) {
  Process polite = Process::launch(shell("exec sleep 100"));
  ExitStatus status = polite.terminate(milliseconds(2000));
  EXPECT_TRUE(status.signaled);
  EXPECT_EQ(status.signal, SIGTERM);

  // Ignores SIGTERM (once its trap is set: it says so in a file): killed
  // after the grace period, which it had in full ("at least" cannot fail
  // under load; how much longer it took is not asserted).
  TempDir dir;
  const std::string ready = dir.path() + "/ready";
  Process stubborn =
      Process::launch(shell("trap '' TERM; touch '" + ready + "'; while :; do sleep 1; done"));
  ASSERT_TRUE(testing::eventually([&] { return fs::exists(ready); }));
  auto start = std::chrono::steady_clock::now();
  status = stubborn.terminate(milliseconds(300));
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(status.signal, SIGKILL) << status.describe();
  EXPECT_GE(took, milliseconds(300));
}

TEST(Process, DestroyingARunningProcessKillsIt) {
  pid_t pid;
  {
    Process process = Process::launch(shell("exec sleep 100"));
    pid = process.pid();
    EXPECT_TRUE(testing::process_exists(pid));
  }
  EXPECT_FALSE(testing::process_exists(pid));
}

TEST(Process, LeftoversInTheProcessGroupDieWithTheLeader) {
  TempDir dir;
  const std::string pid_file = dir.path() + "/pid";
  Process process = Process::launch(shell("sleep 100 & echo $! > " + pid_file + "; exit 0"));
  EXPECT_TRUE(process.wait().success());
  pid_t orphan = std::stoi(testing::read_file(pid_file));
  EXPECT_TRUE(testing::eventually([&] { return !testing::process_exists(orphan); }));
}

TEST(Process, ChildDiesWithItsParent) {
  // An intermediate process launches a sleeper and dies without cleaning up
  // (as a SIGKILLed runner would): PR_SET_PDEATHSIG must kill the sleeper.
  int report[2];
  ASSERT_EQ(::pipe(report), 0);
  pid_t runner = ::fork();
  ASSERT_GE(runner, 0);
  if (runner == 0) {
    ::close(report[0]);
    Process sleeper = Process::launch(shell("exec sleep 100"));
    pid_t pid = sleeper.pid();
    (void)!::write(report[1], &pid, sizeof(pid));
    ::_exit(0);  // no destructors: the Process object never gets to clean up
  }
  ::close(report[1]);
  pid_t sleeper = 0;
  ASSERT_EQ(::read(report[0], &sleeper, sizeof(sleeper)), static_cast<ssize_t>(sizeof(sleeper)));
  ::close(report[0]);
  ::waitpid(runner, nullptr, 0);
  EXPECT_TRUE(testing::eventually([&] { return !testing::process_exists(sleeper); }));
}

TEST(Process, LaunchFailuresSayWhatAndLeaveNothing) {
  LaunchSpec missing;
  missing.argv = {"no-such-program-fabriclab"};
  missing.label = "rank 7";
  try {
    Process::launch(missing);
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot start rank 7: 'no-such-program-fabriclab' not found in PATH");
  }
  LaunchSpec not_executable;
  not_executable.argv = {"/etc/hostname"};
  EXPECT_THROW(Process::launch(not_executable), std::runtime_error);

  TempDir dir;
  Ledger ledger("proc1", dir.path());
  LaunchSpec bad_namespace = shell("true");
  int not_a_namespace = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  bad_namespace.netns_fd = not_a_namespace;
  bad_namespace.netns_label = "fl-x-r0";
  try {
    Process::launch(bad_namespace, &ledger);
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("enter its network namespace"), std::string::npos)
        << e.what();
  }
  ::close(not_a_namespace);
  EXPECT_TRUE(ledger.snapshot()["entries"].empty());

  LaunchSpec bad_file = shell("true");
  bad_file.stdout_stream = Redirect::file("/nonexistent-dir/out");
  EXPECT_THROW(Process::launch(bad_file), std::runtime_error);
}

TEST(Process, RecordedInTheLedgerWhileItRuns) {
  TempDir dir;
  Ledger ledger("proc2", dir.path());
  LaunchSpec spec = shell("exec sleep 100");
  spec.label = "rank 0";
  Process process = Process::launch(spec, &ledger);
  auto entries = ledger.snapshot()["entries"];
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0]["kind"], "process");
  EXPECT_EQ(entries[0]["pid"], process.pid());
  EXPECT_EQ(entries[0]["pgid"], process.pid());
  EXPECT_EQ(entries[0]["label"], "rank 0");
  EXPECT_NE(entries[0]["start_ticks"], 0);
  // The run's marker, inherited by anything the process starts. launch()
  // returns when exec closed the error pipe, which the kernel does before it
  // lays out the new image's environment: until then /proc/PID/environ reads
  // empty, so wait for the layout (a CI run caught that window once).
  std::string environ;
  testing::eventually([&] {
    environ = testing::read_file("/proc/" + std::to_string(process.pid()) + "/environ");
    return !environ.empty();
  });
  EXPECT_NE(environ.find(std::string("FABRICLAB_RUN_ID=proc2") + '\0'), std::string::npos);
  EXPECT_EQ(::getpgid(process.pid()), process.pid());
  process.terminate();
  EXPECT_TRUE(ledger.snapshot()["entries"].empty());
}

// terminate_all() signals every process before it waits for any: the first
// two exit on SIGTERM only once the last has had its SIGTERM too, so one at
// a time (SIGTERM, wait out the grace, SIGKILL, the next) would SIGKILL
// them. The grace only stops a hang.
TEST(Process, TerminateAllSignalsEveryProcessBeforeWaiting) {
  TempDir dir;
  const std::string last = dir.path() + "/last_got_term";
  std::vector<Process> processes;
  for (int i = 0; i < 3; ++i) {
    const std::string on_term = i < 2 ? "until [ -e '" + last + "' ]; do sleep 0.01; done; exit 0"
                                      : "touch '" + last + "'; exit 0";
    const std::string ready = dir.path() + "/ready" + std::to_string(i);
    processes.push_back(Process::launch(
        shell("trap \"" + on_term + "\" TERM; touch '" + ready + "'; while :; do sleep 0.1; done")));
    ASSERT_TRUE(testing::eventually([&] { return fs::exists(ready); }));
  }
  terminate_all(processes, std::chrono::minutes(2));
  for (Process& process : processes) {
    EXPECT_FALSE(process.running());
    EXPECT_TRUE(process.poll()->success()) << process.poll()->describe();
  }
}

TEST(Process, KillRecordedProcessNeverHitsAReusedPid) {
  Process process = Process::launch(shell("exec sleep 100"));
  // Wrong start time: as if the pid now belonged to another process.
  EXPECT_EQ(kill_recorded_process(process.pid(), 1, "nope", "sleeper", false),
            "process sleeper (pid " + std::to_string(process.pid()) + "): already gone");
  EXPECT_FALSE(process.poll().has_value());
  uint64_t start = *process_start_ticks(process.pid());
  EXPECT_NE(kill_recorded_process(process.pid(), start, "nope", "sleeper", true).find("would kill"),
            std::string::npos);
  EXPECT_FALSE(process.poll().has_value());
  EXPECT_NE(kill_recorded_process(process.pid(), start, "nope", "sleeper", false).find("killed"),
            std::string::npos);
  EXPECT_EQ(process.wait().signal, SIGKILL);
}

TEST(StopSignals, SignalsBecomeAStopRequest) {
  StopSignals::install();
  StopSignals::reset();
  EXPECT_FALSE(StopSignals::stop_requested());
  ASSERT_GE(StopSignals::stop_fd(), 0);
  ::raise(SIGTERM);
  EXPECT_TRUE(StopSignals::stop_requested());
  EXPECT_EQ(StopSignals::stop_signal(), SIGTERM);
  ::raise(SIGINT);
  EXPECT_EQ(StopSignals::signal_count(), 2);
  EXPECT_EQ(StopSignals::stop_signal(), SIGTERM);
  pollfd ready{StopSignals::stop_fd(), POLLIN, 0};
  EXPECT_EQ(::poll(&ready, 1, 0), 1);
  EXPECT_EQ(::poll(&ready, 1, 0), 1);  // level-triggered: every poller sees it
  StopSignals::reset();
  EXPECT_EQ(::poll(&ready, 1, 0), 0);
  StopSignals::uninstall();
}

}  // namespace
}  // namespace fabriclab::runner
