// A follower started before its lead's address exists keeps trying for its
// whole window (runner/host/control_store.cc), deterministically: in a
// network namespace of its own, the lead's address first has an
// `unreachable` route -- connect() fails at once with "No route to host",
// what a VM pair's follower met while the lead was still booting, and on
// which c10d gives up -- and 2.5 s later the address exists and the lead
// serves the store. Root only (unshare); skipped otherwise, saying why.
//
// And a follower whose lead dies while the follower's connection waits in
// the lead's accept queue (a lead frozen, then killed: its kernel resets the
// connection) reports the lead lost instead of aborting: with c10d 1.13's
// client, the reset killed the follower from c10d's listener thread
// (terminate, "Connection reset by peer"; store_connection.h).
#include "runner/host/control_store.h"
#include "tests/support/ci_skip.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <future>
#include <thread>

namespace fabriclab::runner::host {
namespace {

using Clock = std::chrono::steady_clock;

// Runs in a child, in a new network namespace: 0 = the follower connected
// after the lead appeared; 2 = setup failed; other = the follower failed.
int follower_waits_for_a_lead_not_up_yet() {
  if (unshare(CLONE_NEWNET) != 0) return 2;
  if (std::system("ip link set lo up && ip route add unreachable 10.123.0.1/32") != 0) return 2;
  const int port = 29471;
  const HostRoster follower{{"10.123.0.1", "10.123.0.2"}, 1, 1};
  const HostRoster lead{{"10.123.0.1", "10.123.0.2"}, 0, 1};
  const auto started = Clock::now();
  // The stores' limits (120 s) only stop a hang: a loaded machine may take
  // its time between the lead's appearance and the follower's key (doc/ci.md).
  auto connected = std::async(std::launch::async, [&] {
    ControlStore store(follower, port, std::chrono::seconds(120));
    store.set_json("follower", true);
    return Clock::now() - started;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  if (connected.wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
    try {
      connected.get();
      return 3;  // connected to nothing?
    } catch (const std::exception&) {
      return 6;  // gave up while the lead was unreachable
    }
  }
  if (std::system("ip route del unreachable 10.123.0.1/32 && "
                  "ip addr add 10.123.0.1/32 dev lo && ip addr add 10.123.0.2/32 dev lo") != 0)
    return 2;
  ControlStore serving(lead, port, std::chrono::seconds(120));
  try {
    const auto waited = connected.get();
    if (waited < std::chrono::milliseconds(2500)) return 4;
    return serving.wait_json("follower", std::chrono::seconds(120), "the follower's key") == true ? 0 : 5;
  } catch (const std::exception&) {
    return 6;  // the follower gave up
  }
}

TEST(ControlStore, AFollowerKeepsTryingWhileTheLeadsAddressIsUnreachable) {
  if (geteuid() != 0) SKIP_OR_FAIL_IN_CI("needs root (a network namespace of its own)");
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) _exit(follower_waits_for_a_lead_not_up_yet());
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "the child was killed by signal " << WTERMSIG(status);
  ASSERT_NE(WEXITSTATUS(status), 2) << "could not set up the namespace (ip)";
  EXPECT_NE(WEXITSTATUS(status), 3) << "the follower connected before the lead existed";
  EXPECT_NE(WEXITSTATUS(status), 6) << "the follower gave up on 'No route to host'";
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

// Runs in a child, in a new network namespace: 0 = the follower's requests
// failed with an exception once its lead was gone; 2 = setup failed; 3 = a
// request succeeded without a lead. An abort ends the child with SIGABRT.
int follower_outlives_a_lead_that_dies_while_it_connects() {
  if (unshare(CLONE_NEWNET) != 0) return 2;
  if (std::system("ip link set lo up") != 0) return 2;
  const int port = 29473;
  const std::vector<std::string> hosts = {"127.0.0.1", "127.0.0.2"};
  int ready[2];
  if (pipe(ready) != 0) return 2;
  const pid_t lead = fork();
  if (lead < 0) return 2;
  if (lead == 0) {
    ControlStore serving(HostRoster{hosts, 0, 1}, port, std::chrono::seconds(10));
    if (write(ready[1], "x", 1) != 1) _exit(2);
    for (;;) pause();
  }
  char byte = 0;
  if (read(ready[0], &byte, 1) != 1) return 2;
  // Frozen: the lead's kernel still completes the follower's handshake, but
  // nobody accepts the connection...
  kill(lead, SIGSTOP);
  ControlStore follower(HostRoster{hosts, 1, 1}, port, std::chrono::seconds(10));
  // ...and then dies: the queued connection is reset.
  kill(lead, SIGKILL);
  waitpid(lead, nullptr, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  try {
    follower.has("run");
    return 3;
  } catch (const std::exception&) {
    return 0;  // the lead is lost, and this process still runs to say so
  }
}

TEST(ControlStore, AFollowerOutlivesALeadThatDiesWhileItConnects) {
  if (geteuid() != 0) SKIP_OR_FAIL_IN_CI("needs root (a network namespace of its own)");
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) _exit(follower_outlives_a_lead_that_dies_while_it_connects());
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "the follower was killed by signal " << WTERMSIG(status)
                                 << (WTERMSIG(status) == SIGABRT ? " (aborted)" : "");
  ASSERT_NE(WEXITSTATUS(status), 2) << "could not set up the namespace (ip)";
  EXPECT_NE(WEXITSTATUS(status), 3) << "a request succeeded with its lead dead";
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace fabriclab::runner::host
