// The report after a lab run, and `fabriclab replay DIR --summary`: reads a
// run directory (recordings/FORMAT.md), prints the summary table, writes the
// charts (SVG, data, gnuplot scripts) and optionally prints them as text,
// then says where the files are.
//
//   render_report(run_dir, std::cout, /*charts_in_terminal=*/true);
//
// It only reads run.json and metrics.jsonl; it writes nothing but the charts
// folder. Chart problems (no gnuplot, a gnuplot error or timeout) are printed
// as a line in `out` and the table is printed anyway.
// Errors: InputError (exit 2) for a missing or malformed run.json or
// metrics.jsonl ("DIR/metrics.jsonl:17: ..."), before anything is printed;
// std::runtime_error if the charts folder cannot be written.
// Thread safety: see gnuplot.h (launches gnuplot as a child process).
#pragma once

#include <filesystem>
#include <ostream>

#include "runner/report/gnuplot.h"

namespace fabriclab::runner::report {

struct ReportOptions {
  bool charts_in_terminal = true;
  bool terminal_color = false;       // ANSI colours in the terminal charts
  std::filesystem::path charts_dir;  // "" = <run dir>/charts
  std::chrono::milliseconds gnuplot_timeout = kGnuplotTimeout;
  // The student's drawn conditions in words ("added latency 125 ms"), shown
  // under the summary; "" for a lab that draws nothing. The caller words
  // them (runner/lab/draw.h): report/ does not read lab files.
  std::string conditions;
};

void render_report(const std::filesystem::path& run_dir, std::ostream& out,
                   bool charts_in_terminal);
void render_report(const std::filesystem::path& run_dir, std::ostream& out,
                   const ReportOptions& options);

}  // namespace fabriclab::runner::report
