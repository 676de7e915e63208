// `fabriclab replay`, run as the real binary: speed and idle limit reach the
// player, chapter markers, the safety filter (and --raw), Ctrl-C, and bad
// files. The pace itself is the player's schedule (player_test.cc): a
// replay's wall time on a shared CPU proves nothing (doc/ci.md).
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <thread>

#include "common/build_paths.h"
#include "tests/support/child_process.h"

namespace {

namespace fs = std::filesystem;
using fabriclab::testing::ChildProcess;
using fabriclab::testing::RunResult;

const std::string kHeader =
    R"({"version": 2, "width": 80, "height": 24, "timestamp": 1795320000, "title": "fixture"})";

class ReplayTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = fabriclab::testing::make_temp_dir("replay_test"); }
  void TearDown() override { fs::remove_all(dir_); }

  // Writes DIR/session.cast with `lines` after the header.
  std::string write_cast(const std::string& body, const std::string& header = kHeader) {
    std::ofstream(dir_ + "/session.cast") << header << "\n" << body;
    return dir_;
  }

  // Runs `fabriclab replay ARGS`; stdout in .output, stderr in stderr_.
  RunResult replay(const std::string& args) {
    const std::string err = dir_ + "/stderr.txt";
    RunResult r = fabriclab::testing::run_command(
        {"/bin/sh", "-c",
         std::string("exec '") + fabriclab::build_paths::fabriclab_binary() + "' replay " + args +
             " 2>'" + err + "'"},
        {}, std::chrono::seconds(60));
    stderr_ = fabriclab::testing::read_file(err);
    return r;
  }

  std::string dir_;
  std::string stderr_;
};

// A 30-second session with two scenarios and long pauses.
std::string thirty_second_session() {
  return R"([0.0, "m", "scenario clean: start"])"
         "\n"
         R"([0.1, "o", "== scenario clean ==\r\n"])"
         "\n"
         R"([10.0, "o", "clean: 11.2 s\r\n"])"
         "\n"
         R"([10.0, "m", "scenario clean: end"])"
         "\n"
         R"([10.1, "m", "scenario latency: start"])"
         "\n"
         R"([29.9, "o", "latency: 27.0 s\r\n"])"
         "\n"
         R"([30.0, "m", "scenario latency: end"])"
         "\n";
}

TEST_F(ReplayTest, FastReplayPlaysEverythingWithChapterLines) {
  const auto dir = write_cast(thirty_second_session());
  const RunResult r = replay("'" + dir + "' --speed 1000 --idle-limit 2");
  ASSERT_TRUE(r.status.exited);
  EXPECT_EQ(r.status.code, 0) << stderr_;
  EXPECT_EQ(r.output,
            "\x1b[2m\u2500\u2500 scenario clean: start \u2500\u2500\x1b[0m\r\n"
            "== scenario clean ==\r\n"
            "clean: 11.2 s\r\n"
            "\x1b[2m\u2500\u2500 scenario clean: end \u2500\u2500\x1b[0m\r\n"
            "\x1b[2m\u2500\u2500 scenario latency: start \u2500\u2500\x1b[0m\r\n"
            "latency: 27.0 s\r\n"
            "\x1b[2m\u2500\u2500 scenario latency: end \u2500\u2500\x1b[0m\r\n");
  EXPECT_NE(stderr_.find("30.0 s recorded"), std::string::npos) << stderr_;
}

TEST_F(ReplayTest, SpeedAndIdleLimitReachThePlayer) {
  // A 20 s pause, at speed 4 and capped at 0.3 s: everything is played, and
  // the player was given both options (it says so on stderr). When each
  // event is due for them is PlaySchedule's test, not a stopwatch's.
  write_cast(R"([0.0, "o", "before "])"
             "\n"
             R"([20.0, "o", "after\r\n"])"
             "\n");
  const RunResult capped = replay("'" + dir_ + "/session.cast' --speed 4 --idle-limit 0.3");
  EXPECT_EQ(capped.status.code, 0) << stderr_;
  EXPECT_EQ(capped.output, "before after\r\n");
  EXPECT_NE(stderr_.find("20.0 s recorded, speed 4, pauses capped at 0.3 s"), std::string::npos)
      << stderr_;
}

TEST_F(ReplayTest, DangerousSequencesAreStrippedUnlessRaw) {
  write_cast(
      R"([0.0, "o", "\u001b[31mred\u001b[0m \u001b]52;c;c2VjcmV0\u0007x\u001b]0;title\u0007\u001b[21t\u001b[c\u009b6n\r\n"])"
      "\n"
      R"([0.1, "m", "\u001b]52;c;bWFya2Vy\u0007evil marker"])"
      "\n");
  const RunResult safe = replay("'" + dir_ + "' --speed 100");
  EXPECT_EQ(safe.status.code, 0) << stderr_;
  EXPECT_EQ(safe.output,
            "\x1b[31mred\x1b[0m x\r\n\x1b[2m\u2500\u2500 evil marker \u2500\u2500\x1b[0m\r\n");
  EXPECT_NE(stderr_.find("removed 5 escape sequence(s)"), std::string::npos) << stderr_;

  const RunResult raw = replay("'" + dir_ + "' --speed 100 --raw");
  EXPECT_EQ(raw.status.code, 0) << stderr_;
  EXPECT_NE(raw.output.find("\x1b]52;c;c2VjcmV0\x07"), std::string::npos);
  // Markers are plain text even with --raw.
  EXPECT_EQ(raw.output.find("bWFya2Vy"), std::string::npos);
  EXPECT_NE(stderr_.find("NOT filtered"), std::string::npos) << stderr_;
}

TEST_F(ReplayTest, CtrlCStopsCleanly) {
  std::string body;
  for (int i = 0; i < 60; ++i) {
    body += "[" + std::to_string(i) + ", \"o\", \"second " + std::to_string(i) + "\\r\\n\"]\n";
  }
  write_cast(body);
  ChildProcess child({fabriclab::build_paths::fabriclab_binary(), "replay", dir_}, {},
                     dir_ + "/out.txt");
  // Wait until it plays (the binary's start-up time varies with load).
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (child.output().find("second 1\r\n") == std::string::npos &&
         std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  child.signal(SIGINT);
  const auto status = child.wait(std::chrono::seconds(5));
  ASSERT_TRUE(status.exited) << "replay did not stop on SIGINT";
  EXPECT_EQ(status.code, 130);
  // It stops where it was, whenever the signal landed: at the last second
  // it printed (not at a time this test guesses from its own clock).
  const std::string out = child.output();
  const std::regex printed("second (\\d+)\r\n");
  std::smatch last;
  for (auto it = std::sregex_iterator(out.begin(), out.end(), printed);
       it != std::sregex_iterator(); ++it)
    last = *it;
  ASSERT_FALSE(last.empty()) << out;
  EXPECT_GE(std::stoi(last[1]), 1) << out;
  EXPECT_NE(out.find("replay stopped at " + last[1].str() + ".0 s of 59.0 s"), std::string::npos)
      << out;
}

TEST_F(ReplayTest, BadFilesExit2WithFileAndLine) {
  struct Case {
    std::string body;
    std::string header;
    std::string expected;
  };
  const std::string cast = dir_ + "/session.cast";
  const std::vector<Case> cases = {
      {"[0.1, \"o\", \"a\"]\n[0.2, \"o\", \"trunc", kHeader, cast + ":3: truncated"},
      {"[0.1, \"o\", \"a\"]\nnot json at all\n", kHeader, cast + ":3: not JSON"},
      {"[0.5, \"o\", \"a\"]\n[0.1, \"o\", \"b\"]\n", kHeader, cast + ":3: time 0.1 s is before"},
      {"[0.1, \"o\"]\n", kHeader, cast + ":2: event: expected [time, code, data]"},
      {"", R"({"version": 3, "term": {"cols": 80, "rows": 24}})",
       cast + ":1: asciicast version 3 is not supported: this player reads version 2"},
      {"", "", cast + ":1: empty"},
  };
  for (const Case& c : cases) {
    std::ofstream(cast) << c.header << (c.header.empty() ? "" : "\n") << c.body;
    const RunResult r = replay("'" + dir_ + "'");
    EXPECT_EQ(r.status.code, 2) << c.expected;
    EXPECT_NE(stderr_.find(c.expected), std::string::npos) << "stderr: " << stderr_;
    EXPECT_EQ(r.output, "") << "nothing is played from a bad file";
  }
}

TEST_F(ReplayTest, MissingPathsAndBadOptionsExit2) {
  RunResult r = replay("'" + dir_ + "/nope'");
  EXPECT_EQ(r.status.code, 2);
  EXPECT_NE(stderr_.find(dir_ + "/nope: not found"), std::string::npos) << stderr_;

  r = replay("'" + dir_ + "'");  // a directory without session.cast
  EXPECT_EQ(r.status.code, 2);
  EXPECT_NE(stderr_.find("session.cast: not found: is " + dir_ + " a fabriclab run directory"),
            std::string::npos)
      << stderr_;

  write_cast("");
  EXPECT_EQ(replay("'" + dir_ + "' --speed 0").status.code, 2);
  EXPECT_EQ(replay("'" + dir_ + "' --speed -2").status.code, 2);
  EXPECT_EQ(replay("'" + dir_ + "' --idle-limit 0").status.code, 2);
}

TEST_F(ReplayTest, SummaryOfADirectoryWithoutRunJsonExits2) {
  write_cast(thirty_second_session());
  const RunResult r = replay("'" + dir_ + "' --summary");
  EXPECT_EQ(r.status.code, 2) << r.output << stderr_;
  EXPECT_NE(stderr_.find("run.json"), std::string::npos) << stderr_;
}

// A re-render reads a recording and writes only where it is told: a copy of
// a reference recording keeps every file byte for byte (a committed
// recording's charts/ would otherwise change under git), and the charts go
// to --charts.
TEST_F(ReplayTest, SummaryLeavesTheRecordingAsItWas) {
  namespace fs = std::filesystem;
  const fs::path recording = fs::path(dir_) / "02-dropped-packet";
  fs::copy(fs::path(fabriclab::build_paths::source_dir()) / "recordings/02-dropped-packet", recording,
           fs::copy_options::recursive);
  std::map<std::string, std::string> before;
  for (const auto& entry : fs::recursive_directory_iterator(recording))
    if (entry.is_regular_file()) before[entry.path().string()] = fabriclab::testing::read_file(entry.path().string());

  const std::string charts = dir_ + "/charts-out";
  const RunResult r = replay("'" + recording.string() + "' --summary --charts '" + charts + "'");
  EXPECT_EQ(r.status.code, 0) << r.output << stderr_;
  EXPECT_NE(r.output.find("charts: " + charts), std::string::npos) << r.output;
  EXPECT_TRUE(fs::exists(charts) && !fs::is_empty(charts)) << "no charts in " << charts;

  std::map<std::string, std::string> after;
  for (const auto& entry : fs::recursive_directory_iterator(recording))
    if (entry.is_regular_file()) after[entry.path().string()] = fabriclab::testing::read_file(entry.path().string());
  EXPECT_EQ(before.size(), after.size()) << "files added to or removed from the recording";
  for (const auto& [path, text] : before) EXPECT_TRUE(after.count(path) && after[path] == text) << path << " changed";
}

}  // namespace
