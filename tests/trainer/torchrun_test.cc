// torchrun itself (through scripts/torchrun, Debian 12's torchrun with its
// Python 3.11 bug fixed) starts `fabriclab train` on two nodes (network
// namespaces): 2 and 4 ranks, with torchrun's agent hosting the store (its
// static rendezvous, the default) and without (c10d rendezvous: rank 0 hosts
// it); Gloo binds to GLOO_SOCKET_IFNAME's interface; a failed rank fails the
// run, or the agents restart the group under the next attempt's prefix.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <filesystem>
#include <set>
#include <thread>

#include "common/build_paths.h"
#include "common/free_port.h"
#include "tests/trainer/metrics_reader.h"
#include "tests/trainer/torchrun_nodes.h"
#include "tests/support/ci_skip.h"

namespace fabriclab::testing {
namespace {

using namespace std::chrono_literals;

const std::vector<std::string> kShortRun = {"--steps", "30", "--batch", "32", "--timeout", "30"};

#define SKIP_UNLESS_TORCHRUN_RUNS()                                 \
  do {                                                              \
    const std::string reason = TorchrunNodes::skip_reason();        \
    if (!reason.empty()) SKIP_OR_FAIL_IN_CI(reason);                    \
  } while (0)

void expect_both_agents_succeed(TorchrunNodes& run) {
  for (int node = 0; node < 2; ++node) {
    const ExitStatus status = run.wait(node, 180s);
    ASSERT_TRUE(status.exited) << "node " << node << " hung:\n" << run.output(node);
    ASSERT_EQ(status.code, 0) << "node " << node << ":\n" << run.output(node);
  }
}

struct Launch {
  int procs_per_node;
  std::string rdzv_backend;
};

void PrintTo(const Launch& launch, std::ostream* out) {
  *out << launch.procs_per_node << " per node, " << launch.rdzv_backend << " rendezvous";
}

class TorchrunLaunch : public ::testing::TestWithParam<Launch> {};

TEST_P(TorchrunLaunch, RanksOnTwoNodesTrainTogetherOverGlooSocketIfname) {
  SKIP_UNLESS_TORCHRUN_RUNS();
  const Launch launch = GetParam();
  const bool agent_store = launch.rdzv_backend == "static";
  TorchrunOptions options;
  options.procs_per_node = launch.procs_per_node;
  options.rdzv_backend = launch.rdzv_backend;
  options.train_args = kShortRun;
  options.env = {{"GLOO_SOCKET_IFNAME", TorchrunNodes::kDevice}};
  TorchrunNodes run(options);
  expect_both_agents_succeed(run);

  const int world = 2 * launch.procs_per_node;
  std::set<int> ranks;
  std::string digest;
  for (int node = 0; node < 2; ++node) {
    for (int local = 0; local < launch.procs_per_node; ++local) {
      const std::string where = "node " + std::to_string(node) + " local rank " + std::to_string(local);
      const auto starts = read_events(run.metrics(node, local), "start");
      ASSERT_EQ(starts.size(), 1u) << where << ":\n" << run.output(node);
      const auto& start = starts[0];
      EXPECT_EQ(start["launcher"], "torchrun") << where;
      EXPECT_EQ(start["world_size"], world) << where;
      EXPECT_EQ(start["local_rank"], local) << where;
      EXPECT_EQ(start["net_device"], TorchrunNodes::kDevice)
          << where << ": Gloo binds to GLOO_SOCKET_IFNAME's interface";
      if (agent_store) {
        EXPECT_EQ(start["store_prefix"], "/worker/attempt_0") << where;
      } else {
        EXPECT_FALSE(start.contains("store_prefix")) << where << ": rank 0 hosts the store";
      }
      ranks.insert(start["rank"].get<int>());
      const auto step_events = read_events(run.metrics(node, local), "step");
      ASSERT_EQ(step_events.size(), 30u) << where;
      EXPECT_GT(step_events.back()["tx_bytes"].get<int64_t>(), 0) << where << ": sent on trlab0";
      const auto final_event = read_events(run.metrics(node, local), "final").at(0);
      if (digest.empty()) digest = final_event["param_digest"];
      EXPECT_EQ(final_event["param_digest"], digest) << where << " diverged";
    }
  }
  EXPECT_EQ(ranks.size(), static_cast<size_t>(world)) << "every rank once";
  // The agents' own words: the static rendezvous hosted the store, and it
  // is the same address fabriclab joined (no "Address already in use").
  for (int node = 0; node < 2; ++node) {
    EXPECT_EQ(run.output(node).find("Address already in use"), std::string::npos)
        << run.output(node);
  }
}

INSTANTIATE_TEST_SUITE_P(Torchrun, TorchrunLaunch,
                         ::testing::Values(Launch{1, "static"}, Launch{2, "static"},
                                           Launch{1, "c10d"}, Launch{2, "c10d"}),
                         [](const auto& info) {
                           return std::to_string(2 * info.param.procs_per_node) + "Ranks" +
                                  (info.param.rdzv_backend == "static" ? "AgentStore"
                                                                       : "RankZeroStore");
                         });

// Waits until `rank` has trained a few steps, then SIGKILLs it (a crash).
void kill_rank_mid_run(TorchrunNodes& run, int rank, const std::string& metrics) {
  const auto give_up = std::chrono::steady_clock::now() + 90s;
  while (read_events(metrics, "step").size() < 5) {
    ASSERT_LT(std::chrono::steady_clock::now(), give_up) << run.output(0) << run.output(1);
    std::this_thread::sleep_for(50ms);
  }
  const pid_t pid = run.worker_pid(rank);
  ASSERT_GT(pid, 0) << "no worker with RANK=" << rank;
  ASSERT_EQ(::kill(pid, SIGKILL), 0);
}

TEST(Torchrun, AFailedRankFailsTheRunAndTorchrunNamesIt) {
  SKIP_UNLESS_TORCHRUN_RUNS();
  TorchrunOptions options;
  options.train_args = {"--steps", "1000000", "--batch", "32", "--timeout", "10"};
  options.env = {{"GLOO_SOCKET_IFNAME", TorchrunNodes::kDevice}};
  TorchrunNodes run(options);  // static: node1's one worker is RANK 1
  kill_rank_mid_run(run, 1, run.metrics(1, 0));
  for (int node = 0; node < 2; ++node) {
    const ExitStatus status = run.wait(node, 120s);
    ASSERT_TRUE(status.exited) << "node " << node << " hung:\n" << run.output(node);
    EXPECT_NE(status.code, 0) << "node " << node << ":\n" << run.output(node);
    EXPECT_NE(run.output(node).find("ChildFailedError"), std::string::npos) << run.output(node);
  }
  EXPECT_NE(run.output(1).find("exitcode  : -9"), std::string::npos)
      << "torchrun reports the killed rank:\n" << run.output(1);
  // Rank 0 saw its peer go and exited non-zero itself (so its agent fails too).
  EXPECT_NE(run.output(0).find("rank 0: step"), std::string::npos) << run.output(0);
  EXPECT_NE(run.output(0).find("collective failed"), std::string::npos) << run.output(0);
  EXPECT_EQ(read_events(run.metrics(0, 0), "error").size(), 1u);
}

// With a restart to spare, the agents start the group again; the agent's
// store still holds the first attempt's keys, so the ranks must meet under
// the next attempt's prefix -- and they finish.
TEST(Torchrun, AFailedRankIsRestartedUnderTheNextAttemptsPrefix) {
  SKIP_UNLESS_TORCHRUN_RUNS();
  TorchrunOptions options;
  options.max_restarts = 1;
  options.train_args = {"--steps", "400", "--batch", "32", "--timeout", "10"};
  options.env = {{"GLOO_SOCKET_IFNAME", TorchrunNodes::kDevice}};
  TorchrunNodes run(options);
  kill_rank_mid_run(run, 1, run.metrics(1, 0));
  expect_both_agents_succeed(run);
  std::string digest;
  for (int node = 0; node < 2; ++node) {
    const auto starts = read_events(run.metrics(node, 0), "start");
    ASSERT_EQ(starts.size(), 2u) << "node " << node << ": two attempts\n" << run.output(node);
    EXPECT_EQ(starts[0]["store_prefix"], "/worker/attempt_0");
    EXPECT_EQ(starts[1]["store_prefix"], "/worker/attempt_1");
    const auto finals = read_events(run.metrics(node, 0), "final");
    ASSERT_EQ(finals.size(), 1u) << "node " << node << ": only the second attempt finished";
    if (digest.empty()) digest = finals[0]["param_digest"];
    EXPECT_EQ(finals[0]["param_digest"], digest) << "node " << node << " diverged";
  }
}

// Lab 01's trainer settings (labs/01-training-loop/lab.toml, its quick
// length: one epoch) on the real Fashion-MNIST, two ranks: torchrun's ranks
// end where two ranks started by hand end. Same seed, same world, same data
// order and the same Gloo ring, so the loss is expected to match to the last
// bit; the stated tolerance (1e-6 relative) only allows for printing.
TEST(Torchrun, TwoRanksOnLab01SettingsEndWithTheLossOfRanksStartedByHand) {
  SKIP_UNLESS_TORCHRUN_RUNS();
  struct stat st {};
  if (::stat("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz", &st) != 0) {
    SKIP_OR_FAIL_IN_CI("Fashion-MNIST not installed (apt-get install dataset-fashion-mnist)");
  }
  const std::vector<std::string> lab01 = {"--model", "mlp", "--width", "128", "--epochs", "1",
                                          "--batch", "64",  "--lr",    "0.05", "--eval-every",
                                          "200", "--log-every", "0"};
  TorchrunOptions options;
  options.data = "";  // the default: /usr/share/datasets/fashion-mnist
  options.train_args = lab01;
  options.env = {{"GLOO_SOCKET_IFNAME", TorchrunNodes::kDevice}};
  TorchrunNodes run(options);

  const std::string dir = make_temp_dir("by-hand");
  const int port = free_loopback_port();
  std::vector<std::unique_ptr<ChildProcess>> by_hand;
  for (int rank = 0; rank < 2; ++rank) {
    std::vector<std::string> argv = {fabriclab::build_paths::fabriclab_binary(), "train",
                                     "--metrics", dir + "/rank" + std::to_string(rank) + ".jsonl"};
    argv.insert(argv.end(), lab01.begin(), lab01.end());
    by_hand.push_back(std::make_unique<ChildProcess>(
        argv,
        std::map<std::string, std::string>{{"MASTER_ADDR", "127.0.0.1"},
                                           {"MASTER_PORT", std::to_string(port)},
                                           {"WORLD_SIZE", "2"},
                                           {"RANK", std::to_string(rank)}},
        dir + "/rank" + std::to_string(rank) + ".log"));
  }
  expect_both_agents_succeed(run);
  for (int rank = 0; rank < 2; ++rank) {
    const ExitStatus status = by_hand[rank]->wait(300s);
    ASSERT_TRUE(status.exited && status.code == 0) << by_hand[rank]->output();
  }

  // Each rank's last loss is on its own shard: compare rank with rank.
  for (int node = 0; node < 2; ++node) {
    const int rank = read_events(run.metrics(node, 0), "start").at(0)["rank"];
    const auto reference =
        read_events(dir + "/rank" + std::to_string(rank) + ".jsonl", "final").at(0);
    const double expected = reference["final_loss"].get<double>();
    const auto final_event = read_events(run.metrics(node, 0), "final").at(0);
    EXPECT_NEAR(final_event["final_loss"].get<double>(), expected, 1e-6 * expected)
        << "rank " << rank;
    EXPECT_EQ(final_event["param_digest"], reference["param_digest"]) << "rank " << rank;
    EXPECT_EQ(read_events(run.metrics(node, 0), "start").at(0)["launcher"], "torchrun");
    RecordProperty("final_loss_rank" + std::to_string(rank), std::to_string(expected));
  }
  EXPECT_EQ(read_events(dir + "/rank0.jsonl", "start").at(0)["launcher"], "env");
  by_hand.clear();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace fabriclab::testing
