// Running gnuplot (Debian gnuplot-nox) as a child process: no shell, its own
// process group, a time limit, killed if it overruns (runner/process).
//
// Thread safety: launch from a thread that outlives the call (Process's
// parent-death signal). Errors are returned, not thrown: a chart that cannot
// be drawn never stops the table from printing.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace fabriclab::runner::report {

constexpr std::chrono::milliseconds kGnuplotTimeout{20000};
constexpr const char* kGnuplotInstallHint = "apt-get install gnuplot-nox";

struct GnuplotRun {
  bool ok = false;
  std::string output;  // what gnuplot wrote on stdout (the text terminal)
  std::string error;   // why it failed: "gnuplot timed out after 20 s", its stderr
};

// The gnuplot executable in PATH, or nullopt.
std::optional<std::filesystem::path> find_gnuplot();

// Runs `gnuplot [-e definition]... script_name` with `dir` as the working
// directory. stdout goes to <script stem>.out in `dir` (read back into the
// result, then removed); stderr is appended to dir/gnuplot.log.
GnuplotRun run_gnuplot(const std::filesystem::path& gnuplot, const std::filesystem::path& dir,
                       const std::string& script_name,
                       const std::vector<std::string>& definitions = {},
                       std::chrono::milliseconds timeout = kGnuplotTimeout);

}  // namespace fabriclab::runner::report
