// `fabriclab cleanup`: removes what earlier runs left behind after they were
// killed (SIGKILL, crash, power loss), found from their ledgers -- exactly the
// namespaces and processes they recorded, never by name patterns.
#include <spdlog/spdlog.h>

#include <iostream>

#include "common/input_error.h"
#include "runner/cli/commands.h"
#include "runner/ledger/ledger.h"
#include "runner/ledger/stale_runs.h"

namespace fabriclab::cli {

void add_cleanup_command(CLI::App& app) {
  auto* command = app.add_subcommand(
      "cleanup",
      "Remove what earlier runs left behind (namespaces, processes) after they were killed, as "
      "recorded in their ledgers; runs still in progress are left alone");
  auto options = std::make_shared<runner::CleanupOptions>();
  command->add_flag("-n,--dry-run", options->dry_run, "Only list what would be removed");
  command
      ->add_option("--dir", options->directory,
                   "Ledger directory (default: " + runner::default_ledger_directory() + ")")
      ->check(CLI::ExistingDirectory);
  command->callback([options] {
    runner::CleanupReport report = runner::clean_stale_runs(*options);
    for (const std::string& line : runner::describe(report, options->dry_run)) {
      std::cout << line << "\n";
    }
    std::cout.flush();
    if (!report.ok()) throw CommandExit{kExitFailure};
  });
}

}  // namespace fabriclab::cli
