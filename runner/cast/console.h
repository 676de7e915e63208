// Console: everything the runner shows the student goes through one object, so
// that the same bytes reach the terminal and the recording (session.cast,
// asciicast v2; the format is recordings/FORMAT.md, "session.cast").
//
// What it records: every print() and status_line() as an output event
// [t, "o", text] and every marker() as [t, "m", label]; t is seconds since
// attach_cast() on the monotonic clock (a wall-clock jump never makes times go
// backwards). Text is recorded as a terminal would have received it through a
// pty: "\n" becomes "\r\n" (asciinema play writes to a raw terminal, where a
// bare "\n" would staircase). The cast is flushed after every event, so a run
// that is killed leaves a valid prefix that replays.
//
// The status line is one live line that rewrites itself (progress, counters):
//   - on a tty: "\r" + text + "\x1b[K" (clear to end of line), every call;
//   - not a tty (a pipe, a CI log): printed as a plain line, at most every
//     kPlainStatusInterval, so logs stay readable.
// The cast always records it the tty way (it is a terminal recording), at most
// every kCastStatusInterval, so casts stay small. print() first erases a live
// status line (tty and cast), then writes its text; the status line is not
// redrawn until the next status_line() call. To keep the last progress state
// visible, print it as an ordinary line.
//
// Lifetime: `terminal` must outlive the Console. The cast file is owned by the
// Console and closed by close_cast() or the destructor.
// Thread safety: every method is thread-safe (one mutex), so a sampler thread
// may update the status line while the main thread prints.
// Errors: attach_cast() throws std::runtime_error naming the file and errno.
// A write error after that (disk full) logs one warning and stops recording;
// the terminal output goes on (recording() turns false).
#pragma once

#include <chrono>
#include <cstdio>
#include <mutex>
#include <ostream>
#include <string>
#include <string_view>

namespace fabriclab::runner {

struct TerminalSize {
  int width = 100;
  int height = 30;
};

// The size of the terminal on `fd` (TIOCGWINSZ), or `fallback` when `fd` is
// not a terminal. Use it for attach_cast()'s width and height.
TerminalSize terminal_size_or(int fd, TerminalSize fallback = {});

// `text` cut to its first `columns` characters (UTF-8 code points, never
// inside one), so that a status line never wraps: a wrapped line is not
// erased by "\r", and every redraw would leave one more on the screen.
std::string_view fit_width(std::string_view text, int columns);

class Console {
 public:
  enum class Terminal {
    kDetect,  // a tty iff `terminal` is std::cout / std::cerr and fd 1 / 2 is a tty
    kTty,     // force live status lines (tests)
    kPlain,   // force plain status lines (tests)
  };

  static constexpr std::chrono::milliseconds kPlainStatusInterval{5000};
  static constexpr std::chrono::milliseconds kCastStatusInterval{200};

  explicit Console(std::ostream& terminal, Terminal kind = Terminal::kDetect);
  ~Console();
  Console(const Console&) = delete;
  Console& operator=(const Console&) = delete;

  // Starts recording to `path` (created or truncated): writes the header
  // {"version": 2, "width", "height", "timestamp" (unix s), "title",
  //  "env": {"TERM", "SHELL"} (those that are set)}. Time 0 is now.
  // Calling it again closes the previous cast first.
  void attach_cast(const std::string& path, int width, int height, const std::string& title);

  // Writes `text` as is (include your own "\n") to the terminal and the cast.
  void print(std::string_view text);

  // Replaces the live status line with `text` (one line, no "\n"), cut to
  // one column less than the terminal's (and the cast's) width.
  void status_line(std::string_view text);
  // Erases the live status line, if any (tty and cast; nothing on a plain terminal).
  void clear_status();

  // A chapter marker in the cast ([t, "m", label]); nothing on the terminal.
  // The runner labels scenarios "scenario NAME: start" / "scenario NAME: STATUS"
  // (recordings/FORMAT.md); replay shows markers as chapter lines.
  void marker(std::string_view label);

  // Flushes and closes the cast (idempotent). Later calls print to the
  // terminal only.
  void close_cast();

  bool terminal_is_tty() const { return tty_; }
  bool recording() const;
  // Why the cast stopped early ("runs/x/session.cast: cannot write: No space
  // left on device"); "" when it did not. The cast then ends at its last
  // whole line, so it still plays.
  std::string cast_error() const;
  // Seconds since attach_cast(), as written in events; 0 when not recording.
  double elapsed_s() const;

 private:
  using Clock = std::chrono::steady_clock;

  void erase_status_locked();
  void write_terminal_locked(std::string_view text);
  void write_event_locked(char code, std::string_view data);
  double elapsed_s_locked() const;

  mutable std::mutex mutex_;
  std::ostream& terminal_;
  bool tty_;
  int tty_fd_ = -1;      // where the terminal's width is read; -1: none
  int cast_width_ = 0;   // columns of the cast; 0: no cast
  bool status_live_ = false;  // a status line is showing (tty) / recorded (cast)
  bool cast_status_live_ = false;
  Clock::time_point last_plain_status_{};
  bool plain_status_printed_ = false;
  Clock::time_point last_cast_status_{};
  bool cast_status_recorded_ = false;

  std::FILE* cast_ = nullptr;
  std::string cast_path_;
  std::string cast_error_;
  Clock::time_point cast_start_{};
};

}  // namespace fabriclab::runner
