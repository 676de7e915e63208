// Host mode started by Slurm: `srun --nodes 4 --ntasks-per-node 1 fabriclab
// run 05 --hosts slurm` on a real four-node cluster (slurm_nodes.h), each
// node a namespace on one bridge. The runners take the hosts, their place
// and their lab interface from srun alone; the lead writes the run. Then
// scancel in the middle of a scenario: nothing is left on any node.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "common/build_paths.h"
#include "tests/runner/host/bridged_hosts.h"
#include "tests/runner/host/slurm_nodes.h"
#include "tests/runner/lab_files.h"
#include "tests/runner/test_support.h"
#include "tests/support/child_process.h"

namespace fabriclab::runner {
namespace {

using namespace std::chrono_literals;
using fabriclab::testing::ChildProcess;
using testing::BridgedHosts;
using testing::read_run_json;
using testing::scenario_in;
using testing::SlurmNodes;
using testing::TempDir;
using testing::wait_for_training;

constexpr int kNodes = 4;

class SlurmHostsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SKIP_UNLESS_NETNS_PRIVILEGES();
    const std::string why = SlurmNodes::skip_reason();
    if (!why.empty()) SKIP_OR_FAIL_IN_CI(why);
    ASSERT_EQ(hosts_.error(), "");
    slurm_ = std::make_unique<SlurmNodes>(hosts_);
    ASSERT_EQ(slurm_->error(), "") << "the Slurm cluster did not come up";
  }
  void TearDown() override { slurm_.reset(); }  // before the namespaces go

  // What a user types on the cluster: one runner per node, started by srun.
  std::string srun_lab05(const std::string& scenarios, const std::string& job_name) const {
    return "srun --job-name " + job_name + " --nodes " + std::to_string(kNodes) +
           " --ntasks-per-node 1 " + fabriclab::build_paths::fabriclab_binary() +
           " run 05 --hosts slurm --quick --scenario " + scenarios + " --labs " +
           std::string(fabriclab::build_paths::source_dir()) + "/labs --output " + output() +
           " --backend userspace --no-charts";
  }
  std::string output() const { return dir_.path() + "/runs"; }

  void expect_nothing_left_on_any_node() const {
    for (int h = 0; h < kNodes; ++h) {
      const auto give_up = std::chrono::steady_clock::now() + 20s;
      while (std::chrono::steady_clock::now() < give_up && !slurm_->other_pids(h).empty())
        std::this_thread::sleep_for(200ms);
      EXPECT_EQ(slurm_->other_pids(h), "") << "processes left on node " << h;
      EXPECT_EQ(hosts_.nft_tables(h).find("fabriclab"), std::string::npos)
          << "node " << h << ":\n" << hosts_.nft_tables(h);
      EXPECT_EQ(hosts_.qdiscs(h).find("fab0:"), std::string::npos)
          << "node " << h << ":\n" << hosts_.qdiscs(h);
    }
  }

  BridgedHosts hosts_{kNodes};  // declared first: outlives the cluster and the runners
  std::unique_ptr<SlurmNodes> slurm_;
  TempDir dir_;
};

TEST_F(SlurmHostsTest, SrunRunsLab05OnFourNodesAndTheLeadWritesTheRun) {
  const auto r = slurm_->run(srun_lab05("clean,case-a", "fl-lab05"), 420s);
  ASSERT_TRUE(r.status.exited) << "srun did not end\n" << r.output << slurm_->logs();
  EXPECT_EQ(r.status.code, 0) << r.output;
  const nlohmann::json run = read_run_json(output());
  ASSERT_FALSE(run.is_null()) << r.output;
  EXPECT_EQ(run["mode"], "host");
  ASSERT_EQ(run["hosts"].size(), static_cast<size_t>(kNodes)) << run["hosts"];
  // srun's node order is the host list: node 0, whose name resolves to
  // 10.88.0.1, leads.
  EXPECT_NE(run["hosts"].dump().find(BridgedHosts::lab_addr(0)), std::string::npos) << run["hosts"];
  for (const char* name : {"clean", "case-a"}) {
    const auto& s = scenario_in(run, name);
    EXPECT_EQ(s["status"], "completed") << name << "\n" << r.output;
    EXPECT_EQ(s["ranks"], kNodes);
  }
  // Every runner found its interface from its own address: lab0..lab3.
  for (int h = 0; h < kNodes; ++h)
    EXPECT_NE(r.output.find(BridgedHosts::device(h)), std::string::npos)
        << "no runner named " << BridgedHosts::device(h) << "\n" << r.output;
  expect_nothing_left_on_any_node();
}

TEST_F(SlurmHostsTest, ScancelMidScenarioLeavesNothingOnAnyNode) {
  ChildProcess srun(slurm_->command(srun_lab05("case-a", "fl-cancel")), {},
                    dir_.path() + "/srun.txt");
  ASSERT_TRUE(wait_for_training(output(), 240s, "ranks/case-a")) << srun.output() << slurm_->logs();
  // The scenario's state exists when the cancel lands: some node carries
  // case-a's impairment (the userspace backend's nft table, or a qdisc).
  std::string impaired;
  for (int h = 0; h < kNodes; ++h)
    if (hosts_.nft_tables(h).find("fabriclab") != std::string::npos ||
        hosts_.qdiscs(h).find("fab0:") != std::string::npos)
      impaired += std::to_string(h) + " ";
  EXPECT_NE(impaired, "") << "no node carried case-a's impairment before scancel";
  const auto cancelled = slurm_->run("scancel --name fl-cancel", 30s);
  EXPECT_EQ(cancelled.status.code, 0) << cancelled.output;
  const auto status = srun.wait(120s);
  EXPECT_TRUE(status.exited) << "srun did not end after scancel\n" << srun.output();
  expect_nothing_left_on_any_node();
}

}  // namespace
}  // namespace fabriclab::runner
