// Console: what the student sees is what the cast records; the cast is valid
// asciicast v2 for our reader and for the real asciinema client.
#include "runner/cast/console.h"

#include <gtest/gtest.h>
#include <poll.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>
#include <vector>

#include "runner/cast/cast_reader.h"
#include "tests/support/child_process.h"
#include "tests/support/ci_skip.h"

namespace fabriclab::runner {
namespace {

namespace fs = std::filesystem;

class ConsoleTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = fabriclab::testing::make_temp_dir("console_test"); }
  void TearDown() override { fs::remove_all(dir_); }
  std::string cast_path() const { return dir_ + "/session.cast"; }
  std::string dir_;
  const std::time_t started_ = std::time(nullptr);
};

// Runs argv in a new pseudo-terminal (asciinema cat opens /dev/tty and puts
// it in raw mode, so it needs one) and returns what it wrote and its exit code
// with the exit code -1 if it could not run.
struct PtyResult {
  int exit_code = -1;
  std::string output;
};
PtyResult run_in_pty(const std::vector<std::string>& argv) {
  PtyResult result;
  int master = -1;
  winsize size{};
  size.ws_col = 100;
  size.ws_row = 30;
  const pid_t pid = forkpty(&master, nullptr, nullptr, &size);
  if (pid < 0) return result;
  if (pid == 0) {
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  char buffer[4096];
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd p{master, POLLIN, 0};
    if (poll(&p, 1, 200) > 0) {
      const ssize_t n = read(master, buffer, sizeof buffer);
      if (n <= 0) break;  // EIO: the child closed the terminal
      result.output.append(buffer, static_cast<std::size_t>(n));
    }
  }
  close(master);
  int status = 0;
  if (waitpid(pid, &status, 0) == pid && WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  return result;
}

std::string without_cr(std::string text) {
  text.erase(std::remove(text.begin(), text.end(), '\r'), text.end());
  return text;
}

std::string all_output(const Cast& cast) {
  std::string out;
  for (const CastEvent& e : cast.events) {
    if (e.code == "o") out += e.data;
  }
  return out;
}

TEST_F(ConsoleTest, PrintsToTheTerminalAndRecordsAValidCast) {
  std::ostringstream terminal;
  {
    Console console(terminal, Console::Terminal::kPlain);
    console.attach_cast(cast_path(), 100, 30, "fabriclab 02: what one dropped packet costs");
    console.marker("scenario clean: start");
    console.print("scenario clean: no impairment\n");
    console.print("\x1b[32mcompleted\x1b[0m in 11.2 s \u2713\n");
    console.marker("scenario clean: end");
  }
  EXPECT_EQ(terminal.str(),
            "scenario clean: no impairment\n\x1b[32mcompleted\x1b[0m in 11.2 s \u2713\n");

  const Cast cast = read_cast(cast_path());
  EXPECT_EQ(cast.header.width, 100);
  EXPECT_EQ(cast.header.height, 30);
  EXPECT_EQ(cast.header.title, "fabriclab 02: what one dropped packet costs");
  ASSERT_TRUE(cast.header.timestamp_unix_s.has_value());
  // Between the test's start and now, by the same clock (whole seconds).
  EXPECT_GE(*cast.header.timestamp_unix_s, static_cast<double>(started_));
  EXPECT_LE(*cast.header.timestamp_unix_s, static_cast<double>(std::time(nullptr)));
  ASSERT_EQ(cast.events.size(), 4u);
  EXPECT_EQ(cast.events[0].code, "m");
  EXPECT_EQ(cast.events[0].data, "scenario clean: start");
  EXPECT_EQ(cast.events[3].code, "m");
  EXPECT_EQ(cast.events[3].data, "scenario clean: end");
  // Recorded as a pty delivers it: \n -> \r\n.
  EXPECT_EQ(cast.events[1].data, "scenario clean: no impairment\r\n");
  EXPECT_EQ(without_cr(all_output(cast)), terminal.str());
}

// Each event is timed between this test's own clock readings around it: a
// bracket, not a bound a descheduled thread could break (doc/ci.md).
TEST_F(ConsoleTest, EventTimesFollowTheMonotonicClock) {
  using Clock = std::chrono::steady_clock;
  const auto seconds_since = [](Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
  };
  const double kRounding = 2e-6;  // the cast's times are written with 6 decimals
  std::ostringstream terminal;
  Console console(terminal, Console::Terminal::kPlain);
  const Clock::time_point before_attach = Clock::now();
  console.attach_cast(cast_path(), 80, 24, "t");
  console.print("a\n");
  // The cast's clock starts inside attach_cast(), after before_attach.
  const double a_at_most = seconds_since(before_attach) + kRounding;
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  console.print("b\n");
  const double b_at_most = seconds_since(before_attach) + kRounding;
  console.close_cast();
  const Cast cast = read_cast(cast_path());
  ASSERT_EQ(cast.events.size(), 2u);
  EXPECT_GE(cast.events[0].time_s, 0.0);
  EXPECT_LE(cast.events[0].time_s, a_at_most);
  EXPECT_GE(cast.events[1].time_s - cast.events[0].time_s, 0.3 - kRounding);  // the sleep, at least
  EXPECT_LE(cast.events[1].time_s, b_at_most);
}

TEST_F(ConsoleTest, StatusLineRewritesItselfOnATtyAndIsErasedByPrint) {
  std::ostringstream terminal;
  Console console(terminal, Console::Terminal::kTty);
  console.attach_cast(cast_path(), 80, 24, "t");
  console.status_line("step 1/80");
  console.status_line("step 2/80");
  console.print("done\n");
  EXPECT_EQ(terminal.str(), "\rstep 1/80\x1b[K\rstep 2/80\x1b[K\r\x1b[Kdone\n");
  console.close_cast();
  const Cast cast = read_cast(cast_path());
  // The second status update came within kCastStatusInterval: not recorded.
  ASSERT_EQ(cast.events.size(), 3u);
  EXPECT_EQ(cast.events[0].data, "\rstep 1/80\x1b[K");
  EXPECT_EQ(cast.events[1].data, "\r\x1b[K");
  EXPECT_EQ(cast.events[2].data, "done\r\n");
}

// A status line wider than the cast would wrap in a player, and "\r" would
// then redraw only its last row: every update would leave a row behind.
TEST_F(ConsoleTest, AStatusLineIsCutToOneColumnLessThanTheCast) {
  std::ostringstream terminal;
  Console console(terminal, Console::Terminal::kPlain);
  console.attach_cast(cast_path(), 20, 24, "t");
  console.status_line("step 1/80  loss 2.302  link 31.0 MB  hot uplink tor0-spine1");
  console.close_cast();
  const Cast cast = read_cast(cast_path());
  ASSERT_EQ(cast.events.size(), 1u);
  EXPECT_EQ(cast.events[0].data, "\rstep 1/80  loss 2.3\x1b[K") << "19 columns of 20";
}

TEST(FitWidth, CountsCharactersNotBytes) {
  EXPECT_EQ(fit_width("abc", 5), "abc");
  EXPECT_EQ(fit_width("abcdef", 3), "abc");
  EXPECT_EQ(fit_width("500 \u00b5s delay", 5), "500 \u00b5") << "µ is two bytes, one column";
  EXPECT_EQ(fit_width("", 0), "");
}

TEST_F(ConsoleTest, StatusLinesOnAPlainTerminalAreThrottledLines) {
  std::ostringstream terminal;
  Console console(terminal, Console::Terminal::kPlain);
  for (int i = 1; i <= 50; ++i) console.status_line("step " + std::to_string(i));
  console.clear_status();
  console.print("end\n");
  // The first one is shown, the next 49 fall inside kPlainStatusInterval.
  EXPECT_EQ(terminal.str(), "step 1\nend\n");
  EXPECT_FALSE(console.terminal_is_tty());
  EXPECT_FALSE(console.recording());
}

TEST_F(ConsoleTest, ConcurrentPrintsKeepEveryEventWhole) {
  std::ostringstream terminal;
  Console console(terminal, Console::Terminal::kTty);
  console.attach_cast(cast_path(), 80, 24, "threads");
  auto writer = [&](char c) {
    for (int i = 0; i < 200; ++i) console.print(std::string(20, c) + "\n");
  };
  std::thread a(writer, 'a');
  std::thread b(writer, 'b');
  std::thread sampler([&] {
    for (int i = 0; i < 200; ++i) console.status_line("sampling " + std::to_string(i));
  });
  a.join();
  b.join();
  sampler.join();
  console.close_cast();
  const Cast cast = read_cast(cast_path());  // every line parses: no torn writes
  int lines = 0;
  for (const CastEvent& e : cast.events) {
    if (e.data.size() == 22 && e.data.substr(20) == "\r\n") ++lines;
  }
  EXPECT_EQ(lines, 400);
}

TEST_F(ConsoleTest, InvalidUtf8IsRecordedAsReplacementCharacters) {
  std::ostringstream terminal;
  Console console(terminal, Console::Terminal::kPlain);
  console.attach_cast(cast_path(), 80, 24, "t");
  console.print("bad \xff\xfe bytes\n");
  console.close_cast();
  const Cast cast = read_cast(cast_path());
  ASSERT_EQ(cast.events.size(), 1u);
  EXPECT_EQ(cast.events[0].data, "bad \ufffd\ufffd bytes\r\n");
}

TEST_F(ConsoleTest, AttachToAnUnwritablePathNamesTheFile) {
  std::ostringstream terminal;
  Console console(terminal, Console::Terminal::kPlain);
  try {
    console.attach_cast(dir_ + "/no/such/dir/session.cast", 80, 24, "t");
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("no/such/dir/session.cast"), std::string::npos)
        << e.what();
  }
  console.print("still prints\n");
  EXPECT_EQ(terminal.str(), "still prints\n");
}

TEST_F(ConsoleTest, TheRealAsciinemaCatReproducesTheOutput) {
  if (access("/usr/bin/asciinema", X_OK) != 0) {
    SKIP_OR_FAIL_IN_CI("asciinema is not installed (apt-get install asciinema)");
  }
  std::ostringstream terminal;
  {
    Console console(terminal, Console::Terminal::kTty);
    console.attach_cast(cast_path(), 100, 30, "lab 02 \"quoted\" title");
    console.marker("scenario clean: start");
    console.print("== scenario clean ==\n");
    console.status_line("step 40/80  loss 0.61");
    console.print(
        "  wall 11.2 s  \x1b[1mslowdown 1.00x\x1b[0m \u2500\u2500 \"quotes\" \\ tab\there\n");
    console.marker("scenario clean: end");
    console.print("summary: 4 scenarios, 1 stalled\n");
  }
  const PtyResult result = run_in_pty({"/usr/bin/asciinema", "cat", cast_path()});
  ASSERT_EQ(result.exit_code, 0) << result.output;
  // asciinema puts the terminal in raw mode and writes the recorded bytes as
  // they are (\r\n line ends, the status line and its erase included). The
  // pty may add \r before \n before raw mode is on; compare without \r.
  const Cast cast = read_cast(cast_path());
  EXPECT_EQ(without_cr(result.output), without_cr(all_output(cast)));
  EXPECT_NE(without_cr(result.output).find("summary: 4 scenarios, 1 stalled\n"), std::string::npos);
  EXPECT_EQ(without_cr(result.output), without_cr(terminal.str()));

  // And `asciinema play` (at 20x, pauses capped) plays it to the end.
  const PtyResult played =
      run_in_pty({"/usr/bin/asciinema", "play", "-s", "20", "-i", "0.1", cast_path()});
  ASSERT_EQ(played.exit_code, 0) << played.output;
  EXPECT_NE(without_cr(played.output).find(without_cr(all_output(cast))), std::string::npos)
      << played.output;
}

}  // namespace
}  // namespace fabriclab::runner
