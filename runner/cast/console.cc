#include "runner/cast/console.h"

#include <spdlog/spdlog.h>
#include <stdio_ext.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <iostream>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace fabriclab::runner {
namespace {

constexpr std::string_view kEraseLine = "\r\x1b[K";

// The fd behind `terminal`, or -1 for a stream that is not stdout/stderr.
int terminal_fd(const std::ostream& terminal) {
  if (&terminal == &std::cout) return STDOUT_FILENO;
  if (&terminal == &std::cerr || &terminal == &std::clog) return STDERR_FILENO;
  return -1;
}

bool detect_tty(const std::ostream& terminal) {
  const int fd = terminal_fd(terminal);
  return fd >= 0 && isatty(fd) == 1;
}

// What a pty would have delivered: "\n" -> "\r\n" unless already preceded by "\r".
std::string as_pty_output(std::string_view text, bool previous_was_cr) {
  std::string out;
  out.reserve(text.size() + 8);
  for (char c : text) {
    if (c == '\n' && !previous_was_cr) out += '\r';
    out += c;
    previous_was_cr = (c == '\r');
  }
  return out;
}

// JSON string; invalid UTF-8 (a rank's garbled output) becomes U+FFFD rather
// than an exception: a recording must never stop the run.
std::string json_string(std::string_view text) {
  return nlohmann::json(std::string(text))
      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

TerminalSize terminal_size_or(int fd, TerminalSize fallback) {
  winsize ws{};
  if (isatty(fd) == 1 && ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 && ws.ws_row > 0) {
    return {ws.ws_col, ws.ws_row};
  }
  return fallback;
}

std::string_view fit_width(std::string_view text, int columns) {
  int seen = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const bool starts_character = (static_cast<unsigned char>(text[i]) & 0xC0) != 0x80;
    if (starts_character && seen++ == columns) return text.substr(0, i);
  }
  return text;
}

Console::Console(std::ostream& terminal, Terminal kind)
    : terminal_(terminal),
      tty_(kind == Terminal::kTty || (kind == Terminal::kDetect && detect_tty(terminal))),
      tty_fd_(tty_ ? terminal_fd(terminal) : -1) {}

Console::~Console() { close_cast(); }

void Console::attach_cast(const std::string& path, int width, int height,
                          const std::string& title) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (cast_ != nullptr) {
    std::fclose(cast_);
    cast_ = nullptr;
  }
  cast_width_ = width;
  std::FILE* file = std::fopen(path.c_str(), "w");
  if (file == nullptr) {
    throw std::runtime_error("cannot create the recording " + path + ": " + std::strerror(errno));
  }
  nlohmann::json header = {
      {"version", 2},     {"width", width},
      {"height", height}, {"timestamp", static_cast<long long>(std::time(nullptr))},
      {"title", title},
  };
  nlohmann::json env = nlohmann::json::object();
  for (const char* name : {"TERM", "SHELL"}) {
    if (const char* value = std::getenv(name)) env[name] = value;
  }
  if (!env.empty()) header["env"] = env;
  const std::string line =
      header.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  if (std::fputs(line.c_str(), file) < 0 || std::fflush(file) != 0) {
    const int err = errno;
    std::fclose(file);
    throw std::runtime_error("cannot write the recording " + path + ": " + std::strerror(err));
  }
  cast_ = file;
  cast_path_ = path;
  cast_start_ = Clock::now();
  cast_status_live_ = false;
  cast_status_recorded_ = false;
}

void Console::print(std::string_view text) {
  std::lock_guard<std::mutex> lock(mutex_);
  erase_status_locked();
  write_terminal_locked(text);
  if (cast_ != nullptr) write_event_locked('o', as_pty_output(text, false));
}

void Console::status_line(std::string_view text) {
  std::lock_guard<std::mutex> lock(mutex_);
  const Clock::time_point now = Clock::now();
  if (tty_) {
    // Read each time: the window may have been resized since the last line.
    const int columns = tty_fd_ >= 0 ? terminal_size_or(tty_fd_, {1000, 0}).width : 1000;
    terminal_ << '\r' << fit_width(text, columns - 1) << "\x1b[K";
    terminal_.flush();
    status_live_ = true;
  } else if (!plain_status_printed_ || now - last_plain_status_ >= kPlainStatusInterval) {
    terminal_ << text << '\n';
    terminal_.flush();
    plain_status_printed_ = true;
    last_plain_status_ = now;
  }
  if (cast_ != nullptr &&
      (!cast_status_recorded_ || now - last_cast_status_ >= kCastStatusInterval)) {
    write_event_locked('o', "\r" + std::string(fit_width(text, cast_width_ - 1)) + "\x1b[K");
    cast_status_live_ = true;
    cast_status_recorded_ = true;
    last_cast_status_ = now;
  }
}

void Console::clear_status() {
  std::lock_guard<std::mutex> lock(mutex_);
  erase_status_locked();
}

void Console::marker(std::string_view label) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (cast_ != nullptr) write_event_locked('m', label);
}

void Console::close_cast() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (cast_ == nullptr) return;
  if (std::fclose(cast_) != 0) {
    spdlog::warn("closing the recording {}: {}", cast_path_, std::strerror(errno));
  }
  cast_ = nullptr;
}

std::string Console::cast_error() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return cast_error_;
}

bool Console::recording() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return cast_ != nullptr;
}

double Console::elapsed_s() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return cast_ != nullptr ? elapsed_s_locked() : 0.0;
}

void Console::erase_status_locked() {
  if (status_live_) {
    terminal_ << kEraseLine;
    status_live_ = false;
  }
  if (cast_status_live_ && cast_ != nullptr) {
    write_event_locked('o', kEraseLine);
  }
  cast_status_live_ = false;
}

void Console::write_terminal_locked(std::string_view text) {
  terminal_ << text;
  terminal_.flush();
}

void Console::write_event_locked(char code, std::string_view data) {
  char time_text[32];
  std::snprintf(time_text, sizeof time_text, "%.6f", elapsed_s_locked());
  const std::string line =
      std::string("[") + time_text + ", \"" + code + "\", " + json_string(data) + "]\n";
  const long whole = std::ftell(cast_);  // flushed after every event: the file's length
  if (std::fputs(line.c_str(), cast_) < 0 || std::fflush(cast_) != 0) {
    cast_error_ = cast_path_ + ": cannot write: " + std::strerror(errno);
    spdlog::warn("recording stopped: {}", cast_error_);
    // Unwritten bytes would be written by fclose, and a partial line is in
    // the file: drop both so the cast ends at its last whole event.
    __fpurge(cast_);
    if (whole >= 0 && ::ftruncate(::fileno(cast_), whole) != 0) {
      spdlog::warn("{}: cannot cut back to its last whole event", cast_path_);
    }
    std::fclose(cast_);
    cast_ = nullptr;
  }
}

double Console::elapsed_s_locked() const {
  return std::chrono::duration<double>(Clock::now() - cast_start_).count();
}

}  // namespace fabriclab::runner
