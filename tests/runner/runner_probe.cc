// A helper program for the runner's tests: it does what a runner does
// (rootless entry, topology, ledger, launching) in a process of its own, so a
// test can SIGKILL it, or run it as an ordinary user.
//
//   runner_probe hold LEDGER_DIR RUN_ID RANKS
//       enters rootless mode if not root, builds a topology recorded in a ledger, launches in rank
//       0 `sh -c 'sleep 1000 & echo started; wait'` (so a grandchild outlives a killed leader),
//       prints "ready <leader pid>" and waits to be killed.
//   runner_probe ping RANKS
//       enters rootless mode if not root, builds a topology (ledger in the
//       default directory), pings from rank 0 to the last rank and back,
//       tears down, prints "mode <...>" and "ping ok", exits 0.
//   runner_probe cleanup LEDGER_DIR
//       runs clean_stale_runs on LEDGER_DIR and prints the report.
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <string>

#include "runner/cleanup/stale_runs.h"
#include "runner/ledger/ledger.h"
#include "runner/ledger/run_id.h"
#include "runner/process/process.h"
#include "runner/topology/topology.h"
#include "runner/topology/user_namespace.h"

namespace fr = fabriclab::runner;

namespace {

int hold(const std::string& dir, const std::string& run_id, int ranks) {
  fr::enter_rootless_namespace_if_needed();
  fr::Ledger ledger(run_id, dir);
  auto topology = fr::Topology::build({ranks, run_id}, ledger);
  fr::LaunchSpec spec;
  // "started" once the grandchild exists, so a kill cannot come before it.
  spec.argv = {"/bin/sh", "-c", "sleep 1000 & echo started; wait"};
  spec.netns_fd = topology->rank(0).netns_fd;
  spec.netns_label = topology->rank(0).netns;
  spec.label = "sleeper";
  int started[2];
  if (::pipe(started) != 0) return 1;
  spec.stdout_stream = fr::Redirect::to_fd(started[1]);
  fr::Process sleeper = fr::Process::launch(spec, &ledger);
  ::close(started[1]);
  char line[16] = {};
  if (::read(started[0], line, sizeof(line) - 1) <= 0) return 1;
  std::cout << "ready " << sleeper.pid() << std::endl;
  for (;;) ::pause();
}

bool ping(const fr::RankNetwork& from, const fr::RankNetwork& to) {
  fr::LaunchSpec spec;
  spec.argv = {"ping", "-n", "-c", "1", "-W", "3", to.ipv4};
  spec.netns_fd = from.netns_fd;
  spec.netns_label = from.netns;
  spec.label = "ping";
  spec.stdout_stream = fr::Redirect::null();
  fr::ExitStatus status = fr::Process::launch(spec).wait();
  std::cout << "ping " << from.netns << " -> " << to.ipv4 << ": " << status.describe() << std::endl;
  return status.success();
}

int ping_mode(int ranks) {
  std::string why;
  fr::PrivilegeMode mode = fr::enter_rootless_namespace_if_needed(&why);
  std::cout << "mode " << (mode == fr::PrivilegeMode::kRootless ? "rootless" : "privileged") << ": "
            << why << std::endl;
  fr::Ledger ledger(fr::make_run_id());
  std::cout << "ledger " << ledger.path() << std::endl;
  bool ok;
  {
    auto topology = fr::Topology::build({ranks, ledger.run_id()}, ledger);
    std::cout << topology->describe() << std::endl;
    const auto& first = topology->rank(0);
    const auto& last = topology->rank(ranks - 1);
    ok = ping(first, last) && ping(last, first);
  }
  std::cout << "entries left " << ledger.snapshot()["entries"].size() << std::endl;
  if (ok) std::cout << "ping ok" << std::endl;
  return ok ? 0 : 1;
}

int cleanup(const std::string& dir) {
  fr::CleanupReport report = fr::clean_stale_runs({dir, false});
  for (const std::string& line : fr::describe(report, false)) std::cout << line << "\n";
  return report.ok() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "hold" && argc == 5) return hold(argv[2], argv[3], std::stoi(argv[4]));
    if (mode == "ping" && argc == 3) return ping_mode(std::stoi(argv[2]));
    if (mode == "cleanup" && argc == 3) return cleanup(argv[2]);
    std::cerr << "usage: runner_probe hold DIR RUN_ID RANKS | ping RANKS | cleanup DIR\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "runner_probe: " << e.what() << std::endl;
    return 1;
  }
}
