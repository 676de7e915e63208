// `fabriclab bench allreduce --hosts` end to end over TCP: two namespaces
// play two lab hosts (two_hosts.h), the same bench command runs in each
// (the lead with the table, the follower with --json), through host mode.
// Each host's stdout holds its table (or JSON) alone, the run's own lines go
// to stderr; the lead's table has both ranks and #wrong 0, the follower's
// its own rank; with --output and --capture the lead's recording holds the
// scenario's `capture` in run.json and the pcap of its interface (host-mode
// capture: the merge of the hosts' outcomes used to drop it). RoCE needs
// rdma_rxe: tests/vm/roce-lab.sh runs the same command on the VM pair.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "common/build_paths.h"
#include "tests/runner/host/two_hosts.h"
#include "tests/runner/test_support.h"
#include "tests/support/child_process.h"

namespace fabriclab::runner {
namespace {

using namespace std::chrono_literals;
using fabriclab::testing::ChildProcess;
using testing::TempDir;
using testing::TwoHosts;

// The one run directory below `output`.
std::string run_dir_in(const std::string& output) {
  std::error_code ignored;
  for (const auto& entry : std::filesystem::directory_iterator(output, ignored))
    if (entry.is_directory()) return entry.path();
  return "";
}

class HostBenchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SKIP_UNLESS_NETNS_PRIVILEGES();
    ASSERT_TRUE(hosts_.ok()) << "cannot build the two host namespaces";
  }

  std::string output(int h) const { return dir_.path() + "/runs-" + std::to_string(h); }
  std::string stdout_of(int h) const { return dir_.path() + "/stdout-" + std::to_string(h); }
  std::string stderr_of(int h) const { return dir_.path() + "/stderr-" + std::to_string(h); }

  // The bench on host h; its stdout into stdout_of(h), its stderr apart.
  std::unique_ptr<ChildProcess> start_bench(int h, bool json) {
    std::vector<std::string> argv = {
        "/bin/sh", "-c", "exec \"$@\" 2>" + stderr_of(h), "sh",
        fabriclab::build_paths::fabriclab_binary(), "bench", "allreduce", "--hosts",
        TwoHosts::hosts(), "--iface", hosts_.device(h), "-b", "64K", "-e", "128K", "-n", "2",
        "-w", "1", "--timeout", "120", "--output", output(h), "--capture"};
    if (json) argv.push_back("--json");
    return std::make_unique<ChildProcess>(hosts_.inside(h, argv),
                                          std::map<std::string, std::string>{}, stdout_of(h));
  }

  std::string both_outputs() const {
    std::string text;
    for (int h = 0; h < 2; ++h)
      text += "--- host " + std::to_string(h) + " stdout:\n" + testing::read_file(stdout_of(h)) +
              "--- stderr:\n" + testing::read_file(stderr_of(h));
    return text;
  }

  TwoHosts hosts_;  // declared first: outlives the runners inside it
  TempDir dir_;
};

TEST_F(HostBenchTest, TcpAcrossTwoHostsPrintsTheTableAndKeepsTheCapture) {
  auto follower = start_bench(1, /*json=*/true);
  std::this_thread::sleep_for(1s);
  auto lead = start_bench(0, /*json=*/false);
  const auto lead_status = lead->wait(300s);
  const auto follower_status = follower->wait(60s);
  ASSERT_TRUE(lead_status.exited && follower_status.exited) << both_outputs();
  EXPECT_EQ(lead_status.code, 0) << both_outputs();
  EXPECT_EQ(follower_status.code, 0) << both_outputs();

  // The lead's stdout: the bench's table and nothing of the run's.
  const std::string table = testing::read_file(stdout_of(0));
  for (const std::string& part :
       {std::string("# fabriclab bench allreduce: 2 ranks, gloo tcp, 2 channel(s) per rank"),
        "(host mode, hosts " + TwoHosts::lab_addr(0) + ", " + TwoHosts::lab_addr(1) + " on " +
            hosts_.device(0) + ")",
        std::string("# line rate: not measured (host mode runs no iperf3)"),
        std::string("       65536         16384     float     sum      -1"),
        std::string("      131072         32768     float     sum      -1"),
        std::string("# Out of bounds values : 0 OK"), std::string("# recording: ")})
    EXPECT_NE(table.find(part), std::string::npos) << part << "\n" << both_outputs();
  EXPECT_EQ(table.find("host mode: 2 hosts"), std::string::npos)
      << "the run's own lines belong on stderr\n" << both_outputs();
  EXPECT_NE(testing::read_file(stderr_of(0)).find("host mode: 2 hosts"), std::string::npos)
      << both_outputs();

  // The follower's stdout is one JSON document: its own rank's figures.
  nlohmann::json json;
  ASSERT_NO_THROW(json = nlohmann::json::parse(testing::read_file(stdout_of(1))))
      << both_outputs();
  EXPECT_EQ(json["ranks"], 2);
  EXPECT_EQ(json["out_of_bounds"], 0);
  ASSERT_EQ(json["results"].size(), 2u) << json.dump(2);
  EXPECT_EQ(json["results"][0]["out_of_place"]["nwrong"], 0) << json.dump(2);
  EXPECT_NE(json["notes"].dump().find("this host's ranks only (1 of 2)"), std::string::npos)
      << json.dump(2);

  // The lead's recording: run.json's scenario capture and its pcap.
  const std::string run = run_dir_in(output(0));
  ASSERT_FALSE(run.empty()) << both_outputs();
  const nlohmann::json manifest = nlohmann::json::parse(testing::read_file(run + "/run.json"));
  EXPECT_EQ(manifest["mode"], "host");
  ASSERT_EQ(manifest["scenarios"].size(), 1u);
  const nlohmann::json& scenario = manifest["scenarios"][0];
  EXPECT_EQ(scenario["status"], "completed") << scenario.dump(2);
  ASSERT_TRUE(scenario.contains("capture")) << "no capture in run.json:\n" << scenario.dump(2);
  const nlohmann::json& capture = scenario["capture"];
  EXPECT_EQ(capture["device"], hosts_.device(0)) << capture;
  EXPECT_GT(capture["packets"].get<uint64_t>(), 0u) << capture;
  const std::string pcap = run + "/" + capture["file"].get<std::string>();
  ASSERT_TRUE(std::filesystem::exists(pcap)) << pcap;
  EXPECT_GT(std::filesystem::file_size(pcap), 24u) << "only a pcap header";
  // The follower's own pcap stays in its local run directory.
  const std::string local = run_dir_in(output(1));
  EXPECT_TRUE(std::filesystem::exists(local + "/" + capture["file"].get<std::string>())) << local;
}

}  // namespace
}  // namespace fabriclab::runner
