// The result fields of an allreduce sweep (the `allreduce` workload): busbw
// from the events' times averaged over ranks, nccl-tests' average, #wrong,
// the busbw ratio against the baseline; the table's sweep columns; and the
// busbw and link charts' data.
#include <gtest/gtest.h>

#include "runner/report/chart_data.h"
#include "runner/report/scenario_summary.h"
#include "runner/report/summary_table.h"
#include "runner/rundir/run_reader.h"

namespace fabriclab::runner::report {
namespace {

using nlohmann::json;

json start(int rank) {
  return {{"event", "start"}, {"rank", rank}, {"ts", 100.0}, {"world_size", 4}, {"steps", 2}};
}

// Rank `rank`'s step for one size: out-of-place time `us`, in-place `ip_us`.
json size_step(int rank, int step, double size, double us, double ip_us, int wrong = 0) {
  return {{"event", "step"}, {"rank", rank},      {"step", step},      {"ts", 100.0 + step},
          {"step_ms", 1000.0}, {"comm_ms", 1000.0}, {"bytes", size},   {"size", size},
          {"time_us", us},     {"wrong", wrong},    {"ip_time_us", ip_us}, {"ip_wrong", 0}};
}

// 4 ranks, sizes 1 MB and 4 MB; at 4 MB the ranks took 1000, 1000, 3000,
// 3000 us: mean 2000 us, algbw 2 GB/s, busbw 2 x 2(3)/4 = 3 GB/s.
std::vector<json> sweep(double slow_factor = 1) {
  std::vector<json> events;
  for (int r = 0; r < 4; ++r) events.push_back(start(r));
  for (int r = 0; r < 4; ++r) {
    events.push_back(size_step(r, 1, 1e6, 1000 * slow_factor, 1000 * slow_factor, r == 0 ? 2 : 0));
    events.push_back(size_step(r, 2, 4e6, (r < 2 ? 1000 : 3000) * slow_factor,
                               2000 * slow_factor));
  }
  events.push_back({{"event", "counters"},
                    {"retransmits", 0},
                    {"drops", 0},
                    {"link_bytes", 100},
                    {"links", {{"r0-sw", {{"tx_bytes", 3e6}, {"rx_bytes", 2e6}}}}}});
  return events;
}

TEST(AllreduceSummary, BusbwIsTheLargestSizeWithTheTimeAveragedOverRanks) {
  const ScenarioResult r = summarize_scenario(sweep());
  ASSERT_TRUE(r.busbw_gb_per_s);
  EXPECT_DOUBLE_EQ(*r.busbw_gb_per_s, 3.0);
  EXPECT_EQ(r.largest_size, 4000000);
  // nccl-tests' average over both sizes and places: 1 MB at 1000 us is
  // busbw 1.5 (both places); 4 MB out-of-place 3, in-place 3.
  ASSERT_TRUE(r.avg_busbw_gb_per_s);
  EXPECT_DOUBLE_EQ(*r.avg_busbw_gb_per_s, (1.5 + 1.5 + 3.0 + 3.0) / 4);
  EXPECT_EQ(r.wrong, 2);
  EXPECT_FALSE(r.final_loss) << "no step carries a loss";
  EXPECT_EQ(r.steps_completed, 2);

  const json j = r;
  EXPECT_EQ(j["busbw_gb_per_s"], 3.0);
  EXPECT_TRUE(j["busbw_ratio"].is_null()) << "set by compute_slowdowns";
  EXPECT_EQ(j.get<ScenarioResult>().busbw_gb_per_s, r.busbw_gb_per_s);
  // A training scenario's result has none of the fields.
  EXPECT_FALSE(json(ScenarioResult{}).contains("busbw_gb_per_s"));
}

TEST(AllreduceSummary, TheRatioIsAgainstTheBaselinesBusbw) {
  std::vector<ScenarioSummary> summaries(2);
  summaries[0].name = "clean";
  summaries[0].status = rundir::ScenarioStatus::kCompleted;
  summaries[0].result = summarize_scenario(sweep());
  summaries[1].name = "slow";
  summaries[1].status = rundir::ScenarioStatus::kCompleted;
  summaries[1].baseline = "clean";
  summaries[1].result = summarize_scenario(sweep(4));
  compute_slowdowns(summaries);
  ASSERT_TRUE(summaries[1].result.busbw_ratio);
  EXPECT_DOUBLE_EQ(*summaries[1].result.busbw_ratio, 0.25);
  EXPECT_DOUBLE_EQ(*summaries[0].result.busbw_ratio, 1.0);

  summaries[0].status = rundir::ScenarioStatus::kStalled;
  compute_slowdowns(summaries);
  EXPECT_FALSE(summaries[1].result.busbw_ratio) << "no completed baseline";

  const std::string table = format_summary_table(summaries);
  EXPECT_NE(table.find("busbw"), std::string::npos) << table;
  EXPECT_NE(table.find("#wrong"), std::string::npos) << table;
  EXPECT_EQ(table.find("final"), std::string::npos) << "no loss column for a sweep\n" << table;
}

TEST(AllreduceSummary, ASizeSomeRankNeverFinishedIsLeftOut) {
  std::vector<json> events = sweep();
  events.erase(events.begin() + 4 + 1);  // rank 0's 4 MB step
  const ScenarioResult r = summarize_scenario(events);
  EXPECT_EQ(r.largest_size, 1000000);
}

TEST(AllreduceSummary, StepsWithoutLossParseAndChartTheirBusbw) {
  const rundir::MetricsLines lines = rundir::parse_metrics(size_step(0, 1, 1e6, 500, 500).dump() +
                                                           "\n" +
                                                           R"({"event":"step","rank":0,"step":2,)"
                                                           R"("ts":1,"step_ms":1,"comm_ms":1,)"
                                                           R"("loss":"low"})" "\n");
  EXPECT_EQ(lines.events.size(), 1u);
  ASSERT_EQ(lines.problems.size(), 1u) << "a loss of the wrong type is still a problem";
  EXPECT_NE(lines.problems[0].message.find("'loss'"), std::string::npos);

  const ScenarioSeries series = series_of("clean", "clean", sweep());
  ASSERT_EQ(series.points.size(), 2u);
  EXPECT_DOUBLE_EQ(series.points[1].size_bytes, 4e6);
  EXPECT_DOUBLE_EQ(series.points[1].busbw_gb_per_s, 3.0);
  ASSERT_EQ(series.links.size(), 1u);
  EXPECT_EQ(format_links_file(series), "# scenario clean\n# link tx_MB rx_MB\nr0-sw 3.000 2.000\n");
  EXPECT_EQ(links_file_name("a b"), "a_b.links.dat");
  const std::string script = busbw_chart_script({series}, "t", "busbw.svg");
  EXPECT_NE(script.find("'clean.dat' using ($5 > 0 ? $5 : 1/0):6"), std::string::npos) << script;
  EXPECT_NE(link_bytes_chart_script({series}, "t", "link_bytes.svg").find("'clean.links.dat'"),
            std::string::npos);
}

}  // namespace
}  // namespace fabriclab::runner::report
