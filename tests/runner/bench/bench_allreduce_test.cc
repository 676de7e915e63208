// `fabriclab bench allreduce` end to end: the real binary builds a lab, runs
// iperf3 and Gloo ranks in it, and prints nccl-tests' table. Small sizes, so
// it takes seconds. Checked: #wrong is 0 for every row of a correct run and
// > 0 (exit 1) when the ranks reduce with max instead of sum; the JSON's
// figures are consistent with the definitions; bad flags exit 2 naming the
// flag; nothing of the run is left on the host.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <thread>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/build_paths.h"
#include "tests/runner/test_support.h"
#include "tests/support/child_process.h"

namespace fabriclab::runner {
namespace {

using fabriclab::testing::ChildProcess;
using fabriclab::testing::run_command;
using namespace std::chrono_literals;

std::vector<std::string> bench_argv(std::vector<std::string> extra) {
  std::vector<std::string> argv = {fabriclab::build_paths::fabriclab_binary(),
                                   "-q",
                                   "bench",
                                   "allreduce",
                                   "-b",
                                   "64K",
                                   "-e",
                                   "256K",
                                   "-n",
                                   "3",
                                   "-w",
                                   "1",
                                   "--iperf-seconds",
                                   "1"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return argv;
}

nlohmann::json json_of(const std::string& output) {
  const size_t start = output.find("{\n");
  if (start == std::string::npos) return nullptr;
  return nlohmann::json::parse(output.substr(start), nullptr, false);
}

TEST(BenchAllreduce, CleanRunHasNoWrongElementsAndConsistentFigures) {
  SKIP_UNLESS_NETNS_PRIVILEGES();
  const auto run = run_command(bench_argv({"--json"}), {}, std::chrono::seconds(120));
  ASSERT_TRUE(run.status.exited) << run.output;
  ASSERT_EQ(run.status.code, 0) << run.output;
  const nlohmann::json j = json_of(run.output);
  ASSERT_TRUE(j.is_object()) << run.output;
  EXPECT_EQ(j.at("ranks"), 2);
  EXPECT_GT(j.at("line_rate").at("gbit_per_s").get<double>(), 0.0);
  ASSERT_EQ(j.at("results").size(), 3u);  // 64K, 128K, 256K
  int64_t size = 64 * 1024;
  for (const nlohmann::json& row : j.at("results")) {
    EXPECT_EQ(row.at("size"), size);
    EXPECT_EQ(row.at("count"), size / 4);
    for (const char* place : {"out_of_place", "in_place"}) {
      const nlohmann::json& p = row.at(place);
      EXPECT_EQ(p.at("nwrong"), 0) << place << " " << size;
      const double time_us = p.at("time").get<double>();
      EXPECT_GT(time_us, 0.0);
      EXPECT_NEAR(p.at("alg_bw").get<double>(), size / 1e3 / time_us, 1e-9);
      EXPECT_NEAR(p.at("bus_bw").get<double>(), p.at("alg_bw").get<double>(), 1e-9);  // 2 ranks
    }
    size *= 2;
  }
  EXPECT_EQ(j.at("out_of_bounds"), 0);
  const std::string run_id = j.at("run_id").get<std::string>();
  ASSERT_FALSE(run_id.empty());
  EXPECT_TRUE(testing::run_netns_entries("fl-" + run_id).empty()) << "namespaces left behind";
  EXPECT_TRUE(testing::marked_processes(run_id).empty()) << "processes left behind";
}

TEST(BenchAllreduce, FourRanksTableAndAWrongReductionIsCaught) {
  SKIP_UNLESS_NETNS_PRIVILEGES();
  const auto run =
      run_command(bench_argv({"--ranks", "4", "--wrong-reduction"}), {}, std::chrono::seconds(120));
  ASSERT_TRUE(run.status.exited) << run.output;
  EXPECT_EQ(run.status.code, 1) << "#wrong > 0 must fail the run\n" << run.output;
  EXPECT_NE(run.output.find("# fabriclab bench allreduce: 4 ranks"), std::string::npos)
      << run.output;
  EXPECT_NE(run.output.find("# line rate: "), std::string::npos);
  EXPECT_NE(run.output.find("# Out of bounds values : "), std::string::npos);
  EXPECT_NE(run.output.find("FAILED"), std::string::npos);
  // Each row: 4 ranks x count elements, every one wrong (max is not sum).
  EXPECT_NE(run.output.find("      262144         65536     float     sum      -1"),
            std::string::npos)
      << run.output;
  EXPECT_NE(run.output.find(" 262144 "), std::string::npos);  // #wrong = 4 x 65536
}

// Each of Gloo's other algorithms (--algorithm, lab 11) on 4 ranks, two
// channels: every element of every size the sum of the ranks' inputs; and
// with the max instead of the sum, every element wrong -- so the count is
// made through that algorithm, not around it.
TEST(BenchAllreduce, EveryAlgorithmSumsAndAWrongReductionIsCaughtThroughIt) {
  SKIP_UNLESS_NETNS_PRIVILEGES();
  for (const char* algorithm : {"ring_chunked", "halving_doubling", "bcube"}) {
    SCOPED_TRACE(algorithm);
    const auto run = run_command(bench_argv({"--ranks", "4", "--algorithm", algorithm, "--json"}),
                                 {}, std::chrono::seconds(120));
    ASSERT_TRUE(run.status.exited) << run.output;
    ASSERT_EQ(run.status.code, 0) << run.output;
    const nlohmann::json j = json_of(run.output);
    ASSERT_TRUE(j.is_object()) << run.output;
    ASSERT_EQ(j.at("results").size(), 3u);
    for (const nlohmann::json& row : j.at("results"))
      for (const char* place : {"out_of_place", "in_place"})
        EXPECT_EQ(row.at(place).at("nwrong"), 0) << place << " " << row.at("size");
  }
  const auto wrong = run_command(
      bench_argv({"--ranks", "4", "--algorithm", "halving_doubling", "--wrong-reduction"}), {},
      std::chrono::seconds(120));
  ASSERT_TRUE(wrong.status.exited) << wrong.output;
  EXPECT_EQ(wrong.status.code, 1) << "#wrong > 0 must fail the run\n" << wrong.output;
  EXPECT_NE(wrong.output.find("halving_doubling"), std::string::npos) << wrong.output;
  EXPECT_NE(wrong.output.find(" 262144 "), std::string::npos) << wrong.output;  // 4 x 65536
}

// --baseline pytorch: torch.distributed's own Gloo allreduce runs in the same
// namespaces at the same sizes; its columns are there, its result is the
// exact sum, and ours/pt is its time over our in-place time. No speed is
// asserted.
TEST(BenchAllreduce, PytorchBaselineIsCheckedAndRatioComesFromTheTwoTimes) {
  SKIP_UNLESS_NETNS_PRIVILEGES();
  const auto run = run_command(bench_argv({"--baseline", "pytorch", "--json"}), {},
                               std::chrono::seconds(240));
  ASSERT_TRUE(run.status.exited) << run.output;
  ASSERT_EQ(run.status.code, 0) << run.output;
  const nlohmann::json j = json_of(run.output);
  ASSERT_TRUE(j.is_object()) << run.output;
  EXPECT_NE(j.at("pytorch").get<std::string>().find("torch.distributed.all_reduce"),
            std::string::npos)
      << j.dump();
  EXPECT_EQ(j.at("pytorch_out_of_bounds"), 0);
  ASSERT_EQ(j.at("results").size(), 3u);  // 64K, 128K, 256K
  for (const nlohmann::json& row : j.at("results")) {
    SCOPED_TRACE(row.dump());
    ASSERT_TRUE(row.contains("pytorch"));
    const nlohmann::json& pt = row.at("pytorch");
    EXPECT_EQ(pt.at("nwrong"), 0);
    const double pt_time = pt.at("time").get<double>();
    const double ours_time = row.at("in_place").at("time").get<double>();
    ASSERT_GT(pt_time, 0.0);
    ASSERT_GT(ours_time, 0.0);
    EXPECT_NEAR(pt.at("alg_bw").get<double>(), row.at("size").get<double>() / 1e3 / pt_time, 1e-9);
    EXPECT_NEAR(row.at("ours_over_pytorch").get<double>(), pt_time / ours_time, 1e-9);
  }
  const std::string run_id = j.at("run_id").get<std::string>();
  EXPECT_TRUE(testing::run_netns_entries("fl-" + run_id).empty()) << "namespaces left behind";
  EXPECT_TRUE(testing::marked_processes(run_id).empty()) << "processes left behind";
}

// Ctrl-C while the ranks run: the bench stops them, removes its namespaces
// and exits non-zero.
TEST(BenchAllreduce, InterruptedRunLeavesNothing) {
  SKIP_UNLESS_NETNS_PRIVILEGES();
  const auto before = testing::run_netns_entries("fl-");
  const std::string dir = fabriclab::testing::make_temp_dir("bench-allreduce-int");
  ChildProcess bench({fabriclab::build_paths::fabriclab_binary(), "bench", "allreduce", "-b", "64M",
                      "-e", "256M", "-n", "100", "--ranks", "3", "--iperf-seconds", "1"},
                     {}, dir + "/out.txt");
  // Its run id, from the namespaces it creates; then wait for the ranks.
  std::string run_id;
  // The loops' limits (2 min each) only stop a hang, not bound a start.
  for (int i = 0; i < 2400 && run_id.empty(); ++i) {
    for (const std::string& name : testing::run_netns_entries("fl-"))
      if (before.count(name) == 0 && name.size() > 6 && name.substr(name.size() - 3) == "-sw")
        run_id = name.substr(3, name.size() - 6);
    std::this_thread::sleep_for(50ms);
  }
  ASSERT_FALSE(run_id.empty()) << bench.output();
  for (int i = 0; i < 2400 && testing::marked_processes(run_id).size() < 3; ++i)
    std::this_thread::sleep_for(50ms);
  ASSERT_GE(testing::marked_processes(run_id).size(), 3u) << "ranks never started\n"
                                                          << bench.output();
  bench.signal(SIGINT);
  const auto status = bench.wait(120s);  // a hang guard, not a bound
  EXPECT_TRUE(status.exited) << "still running 120 s after SIGINT";
  EXPECT_NE(status.code, 0);
  EXPECT_NE(bench.output().find("stopped by signal 2"), std::string::npos) << bench.output();
  EXPECT_TRUE(testing::run_netns_entries("fl-" + run_id).empty()) << "namespaces left behind";
  EXPECT_TRUE(testing::marked_processes(run_id).empty()) << "processes left behind";
}

TEST(BenchAllreduce, BadFlagsExitTwoNamingTheFlag) {
  const auto bad_links = run_command(bench_argv({"--links", "r7"}));
  EXPECT_EQ(bad_links.status.code, 2) << bad_links.output;
  EXPECT_NE(bad_links.output.find("--links: 'r7'"), std::string::npos) << bad_links.output;
  const auto bad_sizes = run_command(
      {fabriclab::build_paths::fabriclab_binary(), "bench", "allreduce", "-b", "1M", "-e", "256K"});
  EXPECT_EQ(bad_sizes.status.code, 2) << bad_sizes.output;
  EXPECT_NE(bad_sizes.output.find("-e/--maxbytes"), std::string::npos) << bad_sizes.output;
  const auto bad_spec = run_command(bench_argv({"--impair", "rate fast"}));
  EXPECT_EQ(bad_spec.status.code, 2) << bad_spec.output;
  EXPECT_NE(bad_spec.output.find("--impair"), std::string::npos) << bad_spec.output;
}

}  // namespace
}  // namespace fabriclab::runner
