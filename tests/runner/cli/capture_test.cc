// `fabriclab run --capture`, read back as a person reads it: a reduced lab
// in real namespaces (2 ranks, the userspace backend), one scenario clean
// and one with 5% loss; each scenario's pcap is listed in run.json and
// tshark (Debian's, not our code) finds TCP retransmissions in the lossy
// one and none in the clean one.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <nlohmann/json.hpp>

#include "common/build_paths.h"
#include "tests/runner/lab_files.h"
#include "tests/runner/test_support.h"
#include "tests/support/child_process.h"
#include "tests/support/ci_skip.h"

namespace fabriclab::runner {
namespace {

using namespace std::chrono_literals;
using fabriclab::testing::run_command;
using testing::read_run_json;
using testing::scenario;
using testing::scenario_in;
using testing::TempDir;
using testing::write_lab;

const char* const kSmallTrainer =
    "model = \"mlp\"\nwidth = 64\nsteps = 15\nbatch = 64\ntimeout_s = 60\n";

// Packets tshark's TCP analysis marks as retransmissions, or -1 when
// tshark could not read the file.
// tshark's path ("" when it is not installed): run_command execs a path.
std::string tshark_path() {
  const auto r = run_command({"/bin/sh", "-c", "command -v tshark"});
  if (!r.status.exited || r.status.code != 0) return "";
  return r.output.substr(0, r.output.find('\n'));
}

long retransmissions_in(const std::string& pcap) {
  const auto r = run_command({tshark_path(), "-r", pcap, "-Y", "tcp.analysis.retransmission", "-T",
                              "fields", "-e", "frame.number"},
                             {}, 120s);
  if (!r.status.exited || r.status.code != 0) return -1;
  // One frame number a line; tshark's own remarks (root) are not numbers.
  std::istringstream lines(r.output);
  long count = 0;
  for (std::string line; std::getline(lines, line);)
    count += !line.empty() && line.find_first_not_of("0123456789") == std::string::npos;
  return count;
}

TEST(CaptureTest, LossyScenarioShowsRetransmissionsCleanNone) {
  SKIP_UNLESS_NETNS_PRIVILEGES();
  if (tshark_path().empty())
    SKIP_OR_FAIL_IN_CI("tshark is not installed (scripts/setup.sh --tests installs it)");
  TempDir dir;
  const std::string labs = dir.path() + "/labs", output = dir.path() + "/runs";
  write_lab(labs, kSmallTrainer, scenario("clean", "", 90, 30) + scenario("loss", "loss 5%", 90, 30));
  const auto r = run_command({fabriclab::build_paths::fabriclab_binary(), "run", "92", "--labs", labs,
                              "--output", output, "--backend", "userspace", "--no-charts",
                              "--capture"},
                             {}, 300s);
  ASSERT_TRUE(r.status.exited) << r.output;
  ASSERT_EQ(r.status.code, 0) << r.output;
  const nlohmann::json run = read_run_json(output);
  ASSERT_FALSE(run.is_null()) << r.output;
  ASSERT_EQ(run["captures"], nlohmann::json({"captures/clean.pcap", "captures/loss.pcap"}))
      << run.dump();
  std::string run_dir;
  for (const auto& entry : std::filesystem::directory_iterator(output)) run_dir = entry.path();

  for (const std::string name : {"clean", "loss"}) {
    const auto& capture = scenario_in(run, name)["capture"];
    ASSERT_TRUE(capture.is_object()) << run.dump();
    EXPECT_EQ(capture["device"], "eth0");
    EXPECT_NE(capture["netns"].get<std::string>().find("-r0"), std::string::npos) << capture;
    EXPECT_GT(capture["packets"].get<uint64_t>(), 100u) << capture;
    EXPECT_EQ(capture["snaplen"], 128);
  }
  const long clean = retransmissions_in(run_dir + "/captures/clean.pcap");
  const long lossy = retransmissions_in(run_dir + "/captures/loss.pcap");
  // Clean loses nothing, but on a loaded machine a late ACK can still fire
  // a retransmission timer (CI saw one): the capture may show no more than
  // the kernels counted, and the lossy link far more.
  const nlohmann::json& counted = scenario_in(run, "clean")["result"]["retransmits"];
  ASSERT_TRUE(counted.is_number()) << run.dump();
  const long clean_counted = counted.get<long>();
  EXPECT_LE(clean, clean_counted) << r.output;
  EXPECT_GT(lossy, clean) << r.output;
  EXPECT_GT(lossy, 5) << r.output;
}

}  // namespace
}  // namespace fabriclab::runner
