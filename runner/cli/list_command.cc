// `fabriclab list`: the labs, as a student meets them, by number. A lab
// whose lab.toml does not load does not stop the listing: the good labs
// list first, then each broken one with its file:line and message, and the
// exit code is 2 (bad input, as for any other lab.toml error) so that a
// script or a course check notices a broken lab even when the listing
// scrolls past.
#include <spdlog/fmt/fmt.h>

#include <iostream>
#include <memory>

#include "common/input_error.h"
#include "runner/cli/commands.h"
#include "runner/lab/lab_catalogue.h"

namespace fabriclab::cli {

void add_list_command(CLI::App& app) {
  auto labs_dir = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("list", "List the labs");
  cmd->add_option("--labs", *labs_dir, "Folder of labs [default: $FABRICLAB_LABS or ./labs]");
  cmd->footer(
      "Exit 0 when every lab loads; 2 when any lab.toml does not (it is listed after the\n"
      "others with its file:line and what is wrong) or --labs is not a folder of labs.");
  cmd->callback([labs_dir] {
    const std::string labs = labs_dir->empty() ? runner::default_labs_dir() : *labs_dir;
    const std::vector<runner::CatalogueEntry> entries = runner::load_every_lab(labs);
    std::vector<const runner::CatalogueEntry*> broken;
    for (const runner::CatalogueEntry& entry : entries) {
      if (!entry.lab) {
        broken.push_back(&entry);
        continue;
      }
      const runner::LabDefinition& lab = *entry.lab;
      std::cout << fmt::format("{}  {:<40} {} scenario(s), {} rank(s)\n    {}\n", lab.id, lab.title,
                               lab.scenarios.size(), lab.ranks, lab.summary);
    }
    std::cout.flush();
    if (broken.empty()) return;
    // After the listing, on stderr: errors, not labs, and all of them at once.
    std::cerr << fmt::format("\n{} lab{} did not load:\n", broken.size(),
                             broken.size() == 1 ? "" : "s");
    for (const runner::CatalogueEntry* entry : broken) std::cerr << "  " << entry->error << "\n";
    throw CommandExit{kExitInputError};
  });
}

}  // namespace fabriclab::cli
