// `fabriclab cleanup`: removes what earlier runs left behind after they were
// killed (SIGKILL, crash, power loss), found from their ledgers -- exactly the
// namespaces and processes they recorded, never by name patterns.
// `fabriclab cleanup --iface IF`: removes what host mode adds to a real
// interface -- fabriclab's reserved qdisc fab0: and its nft tables for IF --
// and nothing else (runner/cleanup/interface_cleanup.h); with --guard, only
// once stdin closes (the runner's guardian, runner/cleanup/impairment_guardian.h).
#include <spdlog/spdlog.h>

#include <iostream>

#include "common/input_error.h"
#include "runner/cleanup/impairment_guardian.h"
#include "runner/cleanup/interface_cleanup.h"
#include "runner/cleanup/stale_runs.h"
#include "runner/cli/commands.h"
#include "runner/ledger/ledger.h"

namespace fabriclab::cli {
namespace {

struct InterfaceFlags {
  std::string iface;
  std::string netns;
  bool guard = false;
};

void clean_interface(const InterfaceFlags& flags, bool dry_run) {
  if (flags.guard) {
    runner::wait_for_runner_to_end();
  } else {
    if (!runner::interface_exists(flags.netns, flags.iface))
      throw InputError("--iface " + flags.iface + ": no such interface" +
                       (flags.netns.empty() ? "" : " in namespace " + flags.netns) +
                       " (expected one `ip link` lists; run as root to see them all)");
  }
  const auto result = runner::clean_interface(flags.netns, flags.iface, dry_run);
  for (const std::string& line : result.actions) std::cout << line << "\n";
  std::cout.flush();
  if (!result.ok) throw CommandExit{kExitFailure};
}

}  // namespace

void add_cleanup_command(CLI::App& app) {
  auto* command = app.add_subcommand(
      "cleanup",
      "Remove what earlier runs left behind (namespaces, processes) after they were killed, as "
      "recorded in their ledgers; runs still in progress are left alone. With --iface: remove "
      "fabriclab's impairment (qdisc fab0:, nft tables fabriclab_<dev>*) from a real interface");
  auto options = std::make_shared<runner::CleanupOptions>();
  auto iface = std::make_shared<InterfaceFlags>();
  command->add_flag("-n,--dry-run", options->dry_run, "Only list what would be removed");
  command
      ->add_option("--dir", options->directory,
                   "Ledger directory (default: " + runner::default_ledger_directory() + ")")
      ->check(CLI::ExistingDirectory);
  auto* iface_option = command->add_option(
      "--iface", iface->iface, "Clean this interface instead (host mode: fab0: qdisc, nft tables)");
  command->add_option("--netns", iface->netns, "The interface's namespace (name under /run/netns)")
      ->needs(iface_option);
  command->add_flag("--guard", iface->guard, "Wait for stdin to close first (host mode's guardian)")
      ->needs(iface_option)
      ->group("");  // internal: what the runner starts
  command->callback([options, iface] {
    if (!iface->iface.empty()) return clean_interface(*iface, options->dry_run);
    runner::CleanupReport report = runner::clean_stale_runs(*options);
    for (const std::string& line : runner::describe(report, options->dry_run)) {
      std::cout << line << "\n";
    }
    std::cout.flush();
    if (!report.ok()) throw CommandExit{kExitFailure};
  });
}

}  // namespace fabriclab::cli
