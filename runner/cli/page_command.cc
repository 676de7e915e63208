// `fabriclab page DIR [-o OUT]`: writes one self-contained HTML page of a run
// directory -- the session in asciinema-player with scenario markers, the
// results, the conditions, the charts and the lab's exercises
// (runner/page/page_writer.h). Default OUT: DIR/page.html.
#include <spdlog/fmt/fmt.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "common/input_error.h"
#include "runner/cli/commands.h"
#include "runner/page/page_writer.h"

namespace fabriclab::cli {
namespace {

namespace fs = std::filesystem;

struct PageArgs {
  std::string dir;
  std::string out;
  std::string labs_dir;
};

void write_page_file(const PageArgs& args) {
  std::error_code error;
  if (!fs::is_directory(args.dir, error)) {
    throw InputError(args.dir +
                     ": not a directory (expected a run directory, e.g. recordings/02-...)");
  }
  if (!args.labs_dir.empty() && !fs::is_directory(args.labs_dir, error)) {
    throw InputError("--labs " + args.labs_dir + ": not a directory (expected a folder of labs)");
  }
  const fs::path out = args.out.empty() ? fs::path(args.dir) / "page.html" : fs::path(args.out);
  // Written beside OUT and renamed over it, so a failure never leaves half a page.
  const fs::path partial = out.string() + ".partial";
  const auto started = std::chrono::steady_clock::now();
  runner::page::PageOptions options;
  options.labs_dir = args.labs_dir;
  runner::page::PageSummary summary;
  {
    std::ofstream file(partial, std::ios::binary | std::ios::trunc);
    if (!file) throw InputError(partial.string() + ": cannot write (expected an existing folder you may write in)");
    try {
      summary = runner::page::write_page(args.dir, file, options);
    } catch (...) {
      file.close();
      fs::remove(partial, error);
      throw;
    }
    if (!file.flush()) throw std::runtime_error(partial.string() + ": cannot write");
  }
  fs::rename(partial, out);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  for (const std::string& problem : summary.problems) {
    std::fprintf(stderr, "page: %s\n", problem.c_str());
  }
  std::printf("wrote %s (%.0f KiB in %.1f s): %zu scenarios, %zu markers, %d charts, %zu exercises",
              out.string().c_str(), static_cast<double>(fs::file_size(out)) / 1024, seconds,
              summary.scenarios, summary.markers, summary.charts, summary.exercises);
  if (summary.removed_sequences > 0) {
    std::printf("; %zu escape sequences removed", summary.removed_sequences);
  }
  std::printf("\n");
}

}  // namespace

void add_page_command(CLI::App& app) {
  auto args = std::make_shared<PageArgs>();
  auto* command = app.add_subcommand(
      "page",
      "Write one self-contained HTML page of a recorded run: the session in a player with "
      "scenario markers, the results, the conditions, the charts and the lab's exercises; "
      "works offline, from disk");
  command->add_option("dir", args->dir, "Run directory (e.g. recordings/02-dropped-packet)")
      ->required();
  command->add_option("-o,--output", args->out, "The HTML file to write (default: DIR/page.html)");
  command->add_option("--labs", args->labs_dir,
                      "Folder of labs, for the exercises (default: the labs beside this build)");
  command->callback([args] { write_page_file(*args); });
}

}  // namespace fabriclab::cli
