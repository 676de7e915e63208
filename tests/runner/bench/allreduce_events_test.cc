// The `allreduce` workload's events (runner/bench/allreduce_events.h): the
// figures of one size as nccl-tests defines them, and the real
// `fabriclab bench allreduce-rank --metrics` writing the workload contract's
// events (start, one step per size, final) for two ranks over loopback.
#include "runner/bench/allreduce_events.h"
#include "common/build_paths.h"

#include <gtest/gtest.h>

#include <fstream>
#include <future>
#include <sstream>

#include "runner/bench/allreduce_rank.h"
#include "runner/rundir/run_reader.h"
#include "tests/runner/test_support.h"
#include "tests/support/child_process.h"

namespace fabriclab::runner::bench {
namespace {

using fabriclab::testing::run_command;

TEST(AllreduceEvents, AStepCarriesNcclTestsFiguresOfOneSize) {
  SizeResult r;
  r.size_bytes = 4000000;
  r.out_of_place = {2000.0, 0};  // 4 MB in 2 ms: algbw 2 GB/s
  r.in_place = {4000.0, 3};
  r.step_ms = 30;
  const nlohmann::json step = allreduce_step_fields(2, r, 4);
  EXPECT_EQ(step["step"], 2);
  EXPECT_EQ(step["bytes"], 4000000);
  EXPECT_EQ(step["count"], 1000000);
  EXPECT_DOUBLE_EQ(step["step_ms"].get<double>(), 30.0);
  EXPECT_DOUBLE_EQ(step["comm_ms"].get<double>(), 30.0) << "it is all communication";
  EXPECT_DOUBLE_EQ(step["algbw"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(step["busbw"].get<double>(), 2.0 * 2 * 3 / 4);  // x 2(n-1)/n
  EXPECT_DOUBLE_EQ(step["ip_busbw"].get<double>(), 1.0 * 2 * 3 / 4);
  EXPECT_EQ(step["wrong"], 0);
  EXPECT_EQ(step["ip_wrong"], 3);
  EXPECT_FALSE(step.contains("loss")) << "nothing is trained";

  const nlohmann::json final_fields = allreduce_final_fields({r, r}, 4, 1.5);
  EXPECT_EQ(final_fields["steps"], 2);
  EXPECT_DOUBLE_EQ(final_fields["avg_busbw"].get<double>(), (3.0 + 1.5) / 2);
  EXPECT_EQ(final_fields["wrong"], 6);
  r.out_of_place.wrong = r.in_place.wrong = -1;
  EXPECT_EQ(allreduce_final_fields({r}, 4, 1.0)["wrong"], -1) << "not checked";

  AllreduceRankOptions o;
  o.sizes_bytes = {1024, 2048, 4096};
  const nlohmann::json start = allreduce_start_fields(o, 2);
  EXPECT_EQ(start["steps"], 3);
  EXPECT_EQ(start["world_size"], 2);
}

// Two real ranks over loopback: every line parses as the run reader reads
// recordings, steps are numbered 1..sizes, each rank ends with a final event.
TEST(AllreduceEvents, TheRankWritesTheWorkloadContractsEvents) {
  runner::testing::TempDir dir;
  auto rank = [&](int r) {
    return run_command(
        {fabriclab::build_paths::fabriclab_binary(), "-q", "bench", "allreduce-rank", "--sizes",
         "4096,65536", "--iters", "2", "--warmup", "1", "--channels", "1", "--timeout", "30",
         "--metrics", dir.path() + "/rank" + std::to_string(r) + ".jsonl"},
        {{"MASTER_ADDR", "127.0.0.1"},
         {"MASTER_PORT", std::to_string(29800 + (::getpid() % 150))},
         {"WORLD_SIZE", "2"},
         {"RANK", std::to_string(r)},
         {"FABRICLAB_BIND_ADDR", "127.0.0.1"}},
        std::chrono::seconds(60));
  };
  auto r1 = std::async(std::launch::async, rank, 1);
  const auto r0 = rank(0);
  const auto second = r1.get();
  ASSERT_EQ(r0.status.code, 0) << r0.output;
  ASSERT_EQ(second.status.code, 0) << second.output;
  for (int r = 0; r < 2; ++r) {
    std::ostringstream text;
    text << std::ifstream(dir.path() + "/rank" + std::to_string(r) + ".jsonl").rdbuf();
    const rundir::MetricsLines lines = rundir::parse_metrics(text.str());
    EXPECT_TRUE(lines.problems.empty()) << text.str();
    std::vector<std::string> kinds;
    for (const auto& e : lines.events) kinds.push_back(e.event["event"]);
    EXPECT_EQ(kinds, (std::vector<std::string>{"start", "step", "step", "final"})) << text.str();
    ASSERT_EQ(lines.events.size(), 4u);
    EXPECT_EQ(lines.events[0].event["steps"], 2);
    EXPECT_EQ(lines.events[2].event["step"], 2);
    EXPECT_EQ(lines.events[2].event["size"], 65536);
    EXPECT_EQ(lines.events[2].event["wrong"], 0);
    EXPECT_GT(lines.events[2].event["busbw"].get<double>(), 0);
    EXPECT_EQ(lines.events[3].event["wrong"], 0);
  }
}

}  // namespace
}  // namespace fabriclab::runner::bench
