#include "runner/report/gnuplot.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include <spdlog/fmt/fmt.h>

#include "common/file_text.h"
#include "runner/process/process.h"

namespace fabriclab::runner::report {
namespace {

}  // namespace

std::optional<std::filesystem::path> find_gnuplot() {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (dir.empty()) continue;
    const std::filesystem::path candidate = std::filesystem::path(dir) / "gnuplot";
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return std::nullopt;
}

GnuplotRun run_gnuplot(const std::filesystem::path& gnuplot, const std::filesystem::path& dir,
                       const std::string& script_name, const std::vector<std::string>& definitions,
                       std::chrono::milliseconds timeout) {
  const std::string stem = std::filesystem::path(script_name).stem().string();
  const auto output_path = dir / (stem + ".out");
  const auto log_path = dir / "gnuplot.log";

  LaunchSpec spec;
  spec.argv = {gnuplot.string()};
  for (const std::string& definition : definitions) {
    spec.argv.push_back("-e");
    spec.argv.push_back(definition);
  }
  spec.argv.push_back(script_name);
  spec.cwd = dir.string();
  spec.stdout_stream = Redirect::file(output_path.string());
  spec.stderr_stream = Redirect::append(log_path.string());
  spec.label = "gnuplot " + script_name;

  GnuplotRun run;
  try {
    Process process = Process::launch(spec);
    std::optional<ExitStatus> status = process.wait_for(timeout);
    if (!status) {
      process.terminate(std::chrono::milliseconds(500));
      run.error = fmt::format("gnuplot {} timed out after {} s", script_name,
                              std::chrono::duration_cast<std::chrono::seconds>(timeout).count());
    } else if (!status->success()) {
      std::string log = read_file_text(log_path);
      if (log.size() > 600) log = "..." + log.substr(log.size() - 600);
      run.error = fmt::format("gnuplot {} {}: {}", script_name, status->describe(), log);
    } else {
      run.ok = true;
    }
  } catch (const std::exception& error) {
    run.error = error.what();
  }
  run.output = read_file_text(output_path);
  std::error_code ignored;
  std::filesystem::remove(output_path, ignored);  // the text lives in the caller's file
  return run;
}

}  // namespace fabriclab::runner::report
