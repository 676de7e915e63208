// `fabriclab replay DIR|FILE`: plays a recorded session (session.cast) back
// at its recorded pace, with the scenario markers as chapter lines, safe for
// recordings from anyone (runner/cast/terminal_sanitizer.h); or, with
// --summary, re-renders the run's results table and charts from its metrics.
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "common/input_error.h"
#include "runner/cast/cast_reader.h"
#include "runner/cast/player.h"
#include "runner/cast/terminal_sanitizer.h"
#include "runner/cli/commands.h"
#include "runner/report/render_report.h"
#include "runner/lab/draw.h"
#include "runner/rundir/run_format.h"
#include "runner/rundir/run_reader.h"

namespace fabriclab::cli {
namespace {

namespace fs = std::filesystem;

constexpr int kExitInterrupted = 130;  // 128 + SIGINT, as shells report it

struct ReplayArgs {
  std::string path;
  double speed = 1.0;
  double idle_limit_s = 2.0;
  bool summary = false;
  std::string charts_dir;  // --charts; "" = a folder of its own under the temp dir
  bool raw = false;
};

std::atomic<bool> g_stop{false};
static_assert(std::atomic<bool>::is_always_lock_free, "used from a signal handler");

extern "C" void on_stop_signal(int) { g_stop.store(true); }

// Ctrl-C (and SIGTERM) stop the replay instead of killing it mid-sequence,
// so the terminal can be put back in order; the old handlers come back after.
class StopSignals {
 public:
  StopSignals() {
    struct sigaction action {};
    action.sa_handler = on_stop_signal;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, &old_int_);
    sigaction(SIGTERM, &action, &old_term_);
  }
  ~StopSignals() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

fs::path existing(const std::string& path) {
  std::error_code error;
  if (!fs::exists(path, error)) {
    throw InputError(path + ": not found (expected a run directory or its session.cast)");
  }
  return fs::path(path);
}

// DIR -> DIR/session.cast; FILE -> FILE.
std::string cast_path(const std::string& path) {
  const fs::path p = existing(path);
  if (!fs::is_directory(p)) return path;
  const fs::path cast = p / runner::rundir::kSessionCastFile;
  if (!fs::exists(cast)) {
    throw InputError(cast.string() + ": not found: is " + path +
                     " a fabriclab run directory (session.cast, run.json, metrics.jsonl)?");
  }
  return cast.string();
}

// DIR -> DIR; FILE -> the directory holding it.
fs::path run_directory(const std::string& path) {
  const fs::path p = existing(path);
  if (fs::is_directory(p)) return p;
  return p.has_parent_path() ? p.parent_path() : fs::path(".");
}

void replay(const ReplayArgs& args) {
  if (args.summary) {
    // A recording is what a run wrote; a re-render must not rewrite it (a
    // committed reference recording's charts/ would change under git).
    const fs::path dir = run_directory(args.path);
    runner::report::ReportOptions options;
    options.charts_in_terminal = true;
    options.terminal_color = isatty(STDOUT_FILENO) == 1;
    options.charts_dir = args.charts_dir.empty()
                             ? fs::temp_directory_path() /
                                   ("fabriclab-charts-" + fs::absolute(dir).filename().string())
                             : fs::path(args.charts_dir);
    // Only run.json holds the conditions: render_report reads the rest.
    options.conditions = runner::recorded_conditions_text(
        runner::rundir::read_run_manifest(dir).value("conditions", nlohmann::json()));
    runner::report::render_report(dir, std::cout, options);
    std::cout << "charts: " << options.charts_dir.string() << "\n";
    return;
  }
  runner::PlayOptions options;
  options.speed = args.speed;
  options.idle_limit_s = args.idle_limit_s;
  options.raw = args.raw;
  const runner::Cast cast = runner::read_cast(cast_path(args.path));  // validated before playing

  std::fprintf(stderr, "replaying %s%s%s: %.1f s recorded, speed %g, pauses capped at %g s%s\n",
               cast.path.c_str(), cast.header.title.empty() ? "" : " -- ",
               runner::plain_text(cast.header.title).c_str(), cast.duration_s(), args.speed,
               args.idle_limit_s, isatty(STDIN_FILENO) == 1 ? "; Ctrl-C stops" : "");
  if (args.raw) {
    std::fprintf(stderr,
                 "--raw: escape sequences are NOT filtered; only replay recordings you trust\n");
  }

  g_stop.store(false);
  runner::PlayResult result;
  {
    StopSignals signals;
    result = runner::play_cast(cast, std::cout, options, g_stop);
  }
  // Leave the viewer's terminal as we found it, whatever the recording did:
  // default colours, cursor shown, autowrap on.
  if (isatty(STDOUT_FILENO) == 1) std::cout << "\x1b[0m\x1b[?25h\x1b[?7h";
  std::cout.flush();
  if (result.removed > 0) {
    std::fprintf(stderr,
                 "replay: removed %zu escape sequence(s) that could act on your terminal "
                 "(see recordings/FORMAT.md; --raw keeps them)\n",
                 result.removed);
  }
  if (result.stopped) {
    std::cout << "\r\n";
    std::cout.flush();
    std::fprintf(stderr, "replay stopped at %.1f s of %.1f s\n", result.played_s,
                 cast.duration_s());
    throw CommandExit{kExitInterrupted};
  }
}

}  // namespace

void add_replay_command(CLI::App& app) {
  auto args = std::make_shared<ReplayArgs>();
  auto* command = app.add_subcommand(
      "replay",
      "Play a recorded lab run back (DIR/session.cast or a .cast file) at its recorded pace, "
      "scenario markers shown as chapter lines; or --summary: its results table and charts");
  command->add_option("path", args->path, "Run directory (e.g. recordings/02-...) or .cast file")
      ->required();
  command->add_option("--speed", args->speed, "Playback speed factor (2 = twice as fast)")
      ->check(positive_number())
      ->capture_default_str();
  command
      ->add_option("--idle-limit", args->idle_limit_s,
                   "Cap every pause in the recording at this many seconds (before --speed)")
      ->check(positive_number())
      ->capture_default_str();
  auto* summary = command->add_flag(
      "--summary", args->summary,
      "Re-render the results table and charts from run.json and metrics.jsonl instead of "
      "playing; the recording itself is not written to");
  command
      ->add_option("--charts", args->charts_dir,
                   "With --summary: write the charts here (default: "
                   "$TMPDIR/fabriclab-charts-<run directory's name>)")
      ->needs(summary);
  command->add_flag("--raw", args->raw,
                    "UNSAFE: pass recorded escape sequences through unfiltered (clipboard, "
                    "title, terminal reports); only for recordings you trust");
  command->callback([args] { replay(*args); });
}

}  // namespace fabriclab::cli
