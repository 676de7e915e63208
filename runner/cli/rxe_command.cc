// `fabriclab rxe --iface IF -- COMMAND [ARG...]`: a SoftRoCE device on a real
// interface for as long as COMMAND runs (issue 35, doc/roce.md). The device
// is fabriclab's (`fabriclab_IF`, runner/rdma/rxe_device.h), written in a run
// ledger before it is created and guarded by host mode's guardian, so it is
// removed when COMMAND ends, on Ctrl-C, and after a SIGKILL of this process
// (the guardian, or `fabriclab cleanup`). COMMAND sees its name in
// FABRICLAB_RDMA_DEVICE (what perftest's -d and ibv_*'s -d take). An
// interface that already has an RDMA device is used as it is and left.
// Exit status: COMMAND's (128 + signal if a signal ended it).
#include <signal.h>
#include <spawn.h>
#include <spdlog/spdlog.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "common/input_error.h"
#include "runner/cleanup/impairment_guardian.h"
#include "runner/cleanup/interface_cleanup.h"
#include "runner/cleanup/stale_runs.h"
#include "runner/cli/commands.h"
#include "runner/ledger/ledger.h"
#include "runner/ledger/run_id.h"
#include "runner/rdma/rxe_device.h"

extern char** environ;

namespace fabriclab::cli {
namespace {

struct RxeFlags {
  std::string iface;
  std::vector<std::string> command;
};

int run_command(const std::vector<std::string>& command) {
  std::vector<char*> argv;
  std::vector<std::string> args = command;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int rc = ::posix_spawnp(&pid, argv[0], nullptr, nullptr, argv.data(), environ);
  if (rc != 0) throw std::runtime_error("cannot run " + command[0] + ": " + std::strerror(rc));
  // Ctrl-C reaches COMMAND (same process group); this process waits for it
  // and then removes the device.
  ::signal(SIGINT, SIG_IGN);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  ::signal(SIGINT, SIG_DFL);
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + WTERMSIG(status);
}

int with_rxe(const RxeFlags& flags) {
  if (!runner::interface_exists("", flags.iface))
    throw InputError("--iface " + flags.iface +
                     ": no such interface in this network namespace (expected one `ip link` "
                     "lists; run as root to see them all)");
  runner::clean_stale_runs_and_warn();
  // Declared in this order so that they go in reverse: the device first,
  // then the guardian (which then finds nothing), then the ledger.
  runner::Ledger ledger(runner::make_run_id());
  runner::ImpairmentGuardian guardian(flags.iface);
  runner::rdma::RxeDevice device(flags.iface, &ledger);
  spdlog::info("RDMA device {} on {} ({})", device.name(), flags.iface,
               device.created() ? "created; removed when the command ends" : "the interface's own");
  ::setenv("FABRICLAB_RDMA_DEVICE", device.name().c_str(), 1);
  return run_command(flags.command);
}

}  // namespace

void add_rxe_command(CLI::App& app) {
  auto flags = std::make_shared<RxeFlags>();
  CLI::App* command = app.add_subcommand(
      "rxe",
      "Run COMMAND with a SoftRoCE (rdma_rxe) device on a real interface, removed afterwards "
      "(host mode; the device's name is in FABRICLAB_RDMA_DEVICE)");
  command->add_option("--iface", flags->iface, "The Ethernet interface (initial namespace)")
      ->required();
  command->add_option("command", flags->command, "COMMAND [ARG...] (after --)")->required();
  command->callback([flags] { throw CommandExit{with_rxe(*flags)}; });
}

}  // namespace fabriclab::cli
