// `fabriclab bench allreduce --hosts` without hosts: the lab its flags make
// (runner/bench/allreduce_host_lab.h) loads as any lab does and carries the
// sizes, iterations and transport to the ranks' command line; the table is
// read back from a host-mode recording's events (lab 14's reference, made on
// the VM pair over RoCE); the table says when no line rate was measured;
// and --transport roce without --hosts is refused naming --hosts. The run
// itself needs hosts: tests/runner/host/host_bench_test.cc (two namespaces,
// TCP) and tests/vm/roce-lab.sh (the VM pair, RoCE).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "common/build_paths.h"
#include "common/input_error.h"
#include "common/temp_dir.h"
#include "runner/bench/allreduce_bench.h"
#include "runner/bench/allreduce_host_lab.h"
#include "runner/bench/allreduce_table.h"
#include "runner/bench/step_rate.h"
#include "runner/lab/lab_definition.h"
#include "runner/workload/allreduce_workload.h"

namespace fabriclab::runner::bench {
namespace {

AllreduceBenchOptions roce_under_loss() {
  AllreduceBenchOptions o;
  o.transport = "roce";
  o.min_bytes = 256 << 10;
  o.max_bytes = 1 << 20;
  o.iters = 3;
  o.warmup = 1;
  o.channels = 1;
  o.impair = "loss 1%";
  o.timeout_s = 300;
  return o;
}

// Writes the lab where the front writes it and loads it as `run` would.
LabDefinition load_synthesized(const HostBenchLab& synthesized, const TempDir& dir) {
  const std::filesystem::path folder = dir.path() / kHostBenchLabFolder;
  std::filesystem::create_directories(folder);
  std::ofstream(folder / "lab.toml") << synthesized.toml;
  return load_lab((folder / "lab.toml").string());
}

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) out += w + " ";
  return out;
}

TEST(AllreduceHostLab, LoadsAndCarriesTheBenchFlagsToTheRanks) {
  TempDir dir("allreduce-host-lab-test");
  const HostBenchLab synthesized = allreduce_host_lab(roce_under_loss(), 2);
  const LabDefinition lab = load_synthesized(synthesized, dir);
  EXPECT_EQ(lab.id, "bench");
  EXPECT_EQ(lab.ranks, 2);
  EXPECT_TRUE(lab.charts.empty()) << "the bench prints its own table";
  ASSERT_EQ(lab.scenarios.size(), 1u);
  const ScenarioDefinition& s = lab.scenarios.front();
  EXPECT_EQ(s.name, synthesized.scenario);
  EXPECT_EQ(s.name.rfind("allreduce-roce-", 0), 0u) << s.name;
  EXPECT_EQ(s.impair(), "loss 1%");
  EXPECT_EQ(s.links, std::vector<std::string>({"all"}));
  EXPECT_EQ(s.deadline_s, 300);
  EXPECT_EQ(s.stall_s, 300);
  EXPECT_EQ(s.workload.kind, "allreduce");
  EXPECT_EQ(s.workload.param("transport"), "roce");
  EXPECT_EQ(allreduce_workload().planned_steps(s.workload), 3);  // 256K, 512K, 1M

  const std::string command = joined(allreduce_workload().rank_command(s.workload, "m.jsonl"));
  for (const char* part : {"--sizes 262144,524288,1048576 ", "--iters 3 ", "--warmup 1 ",
                           "--check 1 ", "--channels 1 ", "--timeout 300 ", "--algorithm ring ",
                           "--transport roce "})
    EXPECT_NE(command.find(part), std::string::npos) << part << " not in: " << command;
}

TEST(AllreduceHostLab, ACleanTcpBenchHasNoImpairmentAndTheTcpTransport) {
  TempDir dir("allreduce-host-lab-test");
  AllreduceBenchOptions o;  // the bench's defaults: 1M..64M, 20 iters, 5 warmup, 2 channels, tcp
  const HostBenchLab synthesized = allreduce_host_lab(o, 4);
  const LabDefinition lab = load_synthesized(synthesized, dir);
  EXPECT_EQ(lab.ranks, 4);
  const ScenarioDefinition& s = lab.scenarios.front();
  EXPECT_EQ(s.name.rfind("allreduce-tcp-", 0), 0u) << s.name;
  EXPECT_EQ(s.impair(), "");
  EXPECT_EQ(allreduce_workload().planned_steps(s.workload), 7);  // 1M .. 64M
  const std::string command = joined(allreduce_workload().rank_command(s.workload, "m.jsonl"));
  EXPECT_NE(command.find("--iters 20 --warmup 5 "), std::string::npos) << command;
  EXPECT_NE(command.find("--channels 2 "), std::string::npos) << command;
  EXPECT_EQ(command.find("--transport"), std::string::npos) << command;
}

// Host mode refuses a follower whose lab or scenarios differ from the
// lead's: different flags must make a different scenario name.
TEST(AllreduceHostLab, DifferentFlagsMakeADifferentScenarioName) {
  AllreduceBenchOptions a = roce_under_loss();
  AllreduceBenchOptions b = a;
  b.max_bytes = 2 << 20;
  AllreduceBenchOptions c = a;
  c.impair = "loss 2%";
  EXPECT_EQ(allreduce_host_lab(a, 2).scenario, allreduce_host_lab(roce_under_loss(), 2).scenario);
  EXPECT_NE(allreduce_host_lab(a, 2).scenario, allreduce_host_lab(b, 2).scenario);
  EXPECT_NE(allreduce_host_lab(a, 2).scenario, allreduce_host_lab(c, 2).scenario);
  EXPECT_NE(allreduce_host_lab(a, 2).scenario, allreduce_host_lab(a, 4).scenario);
}

// Lab 14's reference recording: host mode on the VM pair, the allreduce
// over RoCE, two ranks, 256 KiB .. 1 MiB; roce-0's 256 KiB step events say
// time_us 57787.35525 (rank 1) and 58284.3875 (rank 0).
TEST(AllreduceHostLab, RowsFromAHostModeRecordingAreTheMeanOverItsRanks) {
  const std::vector<nlohmann::json> events = read_json_lines(
      std::string(build_paths::source_dir()) + "/recordings/14-go-back-n/metrics.jsonl");
  int ranks_seen = 0;
  const std::vector<AllreduceRow> rows = allreduce_rows_from_events(events, "roce-0", &ranks_seen);
  EXPECT_EQ(ranks_seen, 2);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].size_bytes, 262144);
  EXPECT_EQ(rows[0].count, 65536);
  EXPECT_EQ(rows[2].size_bytes, 1048576);
  EXPECT_NEAR(rows[0].out_of_place.time_us, (57787.35525 + 58284.3875) / 2, 1e-6);
  for (const AllreduceRow& row : rows) {
    EXPECT_EQ(row.out_of_place.wrong, 0) << row.size_bytes;
    EXPECT_EQ(row.in_place.wrong, 0) << row.size_bytes;
    EXPECT_GT(row.in_place.time_us, 0) << row.size_bytes;
  }
  // A follower's events hold its own ranks only.
  std::vector<nlohmann::json> rank1;
  for (const nlohmann::json& e : events)
    if (e.value("rank", -1) == 1) rank1.push_back(e);
  const std::vector<AllreduceRow> own = allreduce_rows_from_events(rank1, "roce-0", &ranks_seen);
  EXPECT_EQ(ranks_seen, 1);
  ASSERT_EQ(own.size(), 3u);
  EXPECT_NEAR(own[0].out_of_place.time_us, 57787.35525, 1e-6);
  // Another scenario's name finds nothing.
  EXPECT_TRUE(allreduce_rows_from_events(events, "no-such", &ranks_seen).empty());
  EXPECT_EQ(ranks_seen, 0);
}

TEST(AllreduceHostLab, UncheckedResultsStayUnchecked) {
  const nlohmann::json step = {{"event", "step"}, {"scenario", "s"}, {"rank", 0},
                               {"size", 1024},    {"count", 256},    {"time_us", 10.0},
                               {"wrong", -1},     {"ip_time_us", 12.0}, {"ip_wrong", -1}};
  nlohmann::json other = step;
  other["rank"] = 1;
  other["time_us"] = 30.0;
  const auto rows = allreduce_rows_from_events({step, other}, "s");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].out_of_place.wrong, -1);
  EXPECT_DOUBLE_EQ(rows[0].out_of_place.time_us, 20.0);
  EXPECT_DOUBLE_EQ(rows[0].in_place.time_us, 12.0);
}

TEST(AllreduceHostLab, TheTableSaysWhereItRanAndThatNoLineRateWasMeasured) {
  AllreduceReport r;
  r.run_id = "ab12cd";
  r.ranks = 2;
  r.transport = "gloo ibverbs (RoCE), 1 channel(s) per rank, ring";
  r.where = "host mode, hosts 10.99.0.1, 10.99.0.2 on eth0";
  r.notes = {"rxe (fabriclab_eth0 on every host): sent 10 packets"};
  r.line.unmeasured = "host mode runs no iperf3";
  r.rows.push_back({1 << 20, 1 << 18, {1000.0, 0}, {2000.0, 0}, std::nullopt});
  const std::string table = format_allreduce_table(r);
  EXPECT_NE(table.find("# lab: run ab12cd (host mode, hosts 10.99.0.1, 10.99.0.2 on eth0)\n"),
            std::string::npos)
      << table;
  EXPECT_EQ(table.find("namespaces"), std::string::npos) << table;
  EXPECT_NE(table.find("# rxe (fabriclab_eth0 on every host): sent 10 packets\n"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("# line rate: not measured (host mode runs no iperf3)\n"),
            std::string::npos)
      << table;
  EXPECT_EQ(table.find("iperf3 --bidir"), std::string::npos) << table;
  EXPECT_NE(table.find("     N/A     N/A\n"), std::string::npos) << table;
  EXPECT_NE(table.find("# Out of bounds values : 0 OK"), std::string::npos) << table;
  const nlohmann::json json = allreduce_report_json(r);
  EXPECT_EQ(json["line_rate"]["not_measured"], "host mode runs no iperf3");
  EXPECT_TRUE(json["results"][0]["out_of_place"]["bus_bw_over_line"].is_null());
  EXPECT_EQ(json["where"], r.where);
}

// Without --hosts, RoCE is refused before anything is built, and the
// message names the flag that makes it run.
TEST(AllreduceHostLab, RoceWithoutHostsIsRefusedNamingHosts) {
  AllreduceBenchOptions o;
  o.transport = "roce";
  try {
    run_allreduce_bench(o);
    FAIL() << "ran";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("--hosts"), std::string::npos) << what;
    EXPECT_NE(what.find("network namespaces"), std::string::npos) << what;
  }
  // The checks host mode shares take RoCE.
  EXPECT_NO_THROW(check_allreduce_options(o));
}

}  // namespace
}  // namespace fabriclab::runner::bench
