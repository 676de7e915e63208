// `fabriclab run` on a disk that fills up mid-run: a real two-rank run
// whose run directory is a small tmpfs (mounted in a mount namespace of the
// test's own, so nothing leaks). The first scenario fits; the second trains
// until the disk is full. The run must end with an error naming the file
// and ENOSPC, exit non-zero, remove its namespaces and processes, and leave
// a run.json that parses and says what happened: status "failed", the
// error, the first scenario as it ended -- with metrics.jsonl holding that
// scenario's events and no partial line, and a session.cast that plays.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "common/build_paths.h"
#include "tests/runner/lab_files.h"
#include "tests/runner/test_support.h"
#include "tests/support/child_process.h"

namespace fabriclab::runner {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using fabriclab::testing::run_command;
using testing::TempDir;

// Room for the first scenario's files and run.json's reserve
// (rundir::kManifestReserveBytes), not for the second's metrics.
constexpr const char* kDiskSize = "320k";

// In `unshare --mount`: a tmpfs of $1 on $2, the run ($4...), then the run
// directory copied out to $3 (the tmpfs goes with the namespace).
const char* const kRunOnSmallDisk = R"sh(
size=$1; disk=$2; out=$3; shift 3
mount -t tmpfs -o size="$size" fabriclab-disk-full "$disk" || exit 97
"$@"
code=$?
cp -a "$disk"/. "$out"/
exit $code
)sh";

std::string run_dir_under(const std::string& parent) {
  for (const auto& entry : fs::directory_iterator(parent))
    if (entry.is_directory()) return entry.path().string();
  return "";
}

TEST(DiskFull, RunEndsWithAClearErrorAndAConsistentPartialRunJson) {
  SKIP_UNLESS_NETNS_PRIVILEGES();
  TempDir dir;
  const std::string labs = dir.path() + "/labs", disk = dir.path() + "/disk",
                    copy = dir.path() + "/copy";
  fs::create_directories(disk);
  fs::create_directories(copy);
  testing::write_lab(labs,
                     "model = \"mlp\"\nwidth = 64\nsteps = 10\nbatch = 64\ntimeout_s = 20\n",
                     testing::scenario("fits", "", 60, 20) +
                         // Steps without end: its metrics fill the disk within seconds.
                         testing::scenario("fills", "", 90, 30) +
                         "workload = { steps = 1000000 }\n");

  const auto r = run_command({"/usr/bin/unshare",
                              "--mount",
                              "--propagation",
                              "private",
                              "--",
                              "/bin/sh",
                              "-c",
                              kRunOnSmallDisk,
                              "sh",
                              kDiskSize,
                              disk,
                              copy,
                              fabriclab::build_paths::fabriclab_binary(),
                              "run",
                              "92",
                              "--labs",
                              labs,
                              "--output",
                              disk,
                              "--backend",
                              "userspace",
                              "--no-charts"},
                             {}, 180s);
  ASSERT_TRUE(r.status.exited) << r.output;
  ASSERT_NE(r.status.code, 97) << "could not mount a tmpfs: " << r.output;
  EXPECT_EQ(r.status.code, 1) << r.output;
  EXPECT_NE(r.output.find("No space left on device"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("ENOSPC"), std::string::npos) << r.output;

  const std::string run_dir = run_dir_under(copy);
  ASSERT_FALSE(run_dir.empty()) << "no run directory\n" << r.output;
  const std::string name = fs::path(run_dir).filename().string();
  EXPECT_NE(r.output.find(name + "/"), std::string::npos) << "the error names no file of the run\n"
                                                          << r.output;

  // run.json: whole, and saying what happened.
  std::ifstream in(run_dir + "/run.json");
  ASSERT_TRUE(in) << "no run.json\n" << r.output;
  const nlohmann::json run = nlohmann::json::parse(in, nullptr, false);
  ASSERT_TRUE(run.is_object()) << testing::read_file(run_dir + "/run.json");
  EXPECT_EQ(run["status"], "failed");
  EXPECT_NE(run.value("error", "").find("No space left on device"), std::string::npos) << run.dump(2);
  ASSERT_EQ(run["scenarios"].size(), 1u) << run.dump(2);
  EXPECT_EQ(run["scenarios"][0]["name"], "fits");
  EXPECT_EQ(run["scenarios"][0]["status"], "completed");
  EXPECT_FALSE(fs::exists(run_dir + "/run.json.tmp"));
  EXPECT_FALSE(fs::exists(run_dir + "/.run.json.reserve"));

  // metrics.jsonl: every line whole; the first scenario's events, none of the second's.
  std::ifstream metrics(run_dir + "/metrics.jsonl");
  int fits_steps = 0;
  long line_number = 0;
  for (std::string line; std::getline(metrics, line);) {
    ++line_number;
    const auto event = nlohmann::json::parse(line, nullptr, false);
    ASSERT_TRUE(event.is_object()) << "metrics.jsonl:" << line_number << ": " << line;
    EXPECT_NE(event.value("scenario", ""), "fills") << line;
    if (event.value("scenario", "") == "fits" && event.value("event", "") == "step") ++fits_steps;
  }
  EXPECT_EQ(fits_steps, 2 * 10);

  // The reader and the player take what is there.
  const auto summary = run_command(
      {fabriclab::build_paths::fabriclab_binary(), "replay", run_dir, "--summary"}, {}, 60s);
  EXPECT_EQ(summary.status.code, 0) << summary.output;
  const auto replay = run_command({fabriclab::build_paths::fabriclab_binary(), "replay", run_dir,
                                   "--speed", "1000", "--idle-limit", "0.01"},
                                  {}, 60s);
  EXPECT_EQ(replay.status.code, 0) << replay.output;

  // Nothing of the run is left (its namespaces and processes carry its id).
  const std::string run_id = run["run_id"];
  const auto give_up = std::chrono::steady_clock::now() + 120s;  // a hang guard, not a bound
  while (!testing::marked_processes(run_id).empty() && std::chrono::steady_clock::now() < give_up)
    std::this_thread::sleep_for(100ms);
  EXPECT_TRUE(testing::run_netns_entries("fl-" + run_id).empty()) << "namespaces left behind";
  EXPECT_TRUE(testing::marked_processes(run_id).empty()) << "processes left behind";
}

}  // namespace
}  // namespace fabriclab::runner
