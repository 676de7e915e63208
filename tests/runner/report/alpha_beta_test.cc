// Lab 11's alpha-beta fit (runner/report/alpha_beta_fit.h): it recovers a
// known model from exact times, weighs small sizes as much as large ones,
// refuses what it cannot fit; and the `alpha_beta` result fields and table
// computed from an allreduce scenario's events.
#include <gtest/gtest.h>

#include "common/allreduce_algorithms.h"
#include "runner/report/alpha_beta_chart.h"
#include "runner/report/alpha_beta_fit.h"
#include "runner/report/alpha_beta_table.h"
#include "runner/report/scenario_summary.h"

namespace fabriclab::runner::report {
namespace {

using nlohmann::json;

// 14 steps of 5000 us and 25 bytes per us (25 MB/s): crossover 70 ms x 25
// B/us = 1,750,000 bytes.
std::vector<FitPoint> exact_points() {
  std::vector<FitPoint> points;
  for (double bytes = 4096; bytes <= 16 << 20; bytes *= 4)
    points.push_back({bytes, 14 * 5000 + bytes / 25});
  return points;
}

TEST(AlphaBetaFit, RecoversTheModelThatMadeTheTimes) {
  const auto fit = fit_alpha_beta(exact_points(), 14);
  ASSERT_TRUE(fit);
  EXPECT_NEAR(fit->alpha_us, 5000, 1e-6);
  EXPECT_NEAR(fit->latency_us, 70000, 1e-5);
  EXPECT_NEAR(fit->bytes_per_us, 25, 1e-9);
  EXPECT_NEAR(fit->crossover_bytes, 1750000, 1e-3);
  EXPECT_NEAR(fit->worst_error, 0, 1e-9);
  ASSERT_EQ(fit->predicted_us.size(), exact_points().size());
  EXPECT_NEAR(fit->predicted_us.front(), 70000 + 4096 / 25.0, 1e-6);
}

TEST(AlphaBetaFit, WeighsTheSmallSizesAsMuchAsTheLarge) {
  // The smallest size 20% slow: plain least squares on the times would not
  // notice (70 ms beside 700 ms); on the relative error the fit spreads the
  // miss, so no size is off by more than the 20% put in.
  std::vector<FitPoint> points = exact_points();
  points.front().time_us *= 1.2;
  const auto fit = fit_alpha_beta(points, 14);
  ASSERT_TRUE(fit);
  EXPECT_GT(fit->worst_error, 0.01);
  EXPECT_LT(fit->worst_error, 0.2);
  EXPECT_GT(fit->alpha_us, 5000) << "the slow small size raises the fixed cost";
}

TEST(AlphaBetaFit, NoLatencyShowingIsAFitWithoutIt) {
  // The smallest size faster than proportional: the intercept would come
  // out negative, a round trip that saves time.
  const std::vector<FitPoint> points = {{1e6, 800}, {4e6, 4000}, {16e6, 16000}};
  const auto fit = fit_alpha_beta(points, 6);
  ASSERT_TRUE(fit);
  EXPECT_EQ(fit->latency_us, 0);
  EXPECT_EQ(fit->crossover_bytes, 0);
  EXPECT_GT(fit->bytes_per_us, 900);
  EXPECT_LT(fit->bytes_per_us, 1100);
}

TEST(AlphaBetaFit, RefusesWhatItCannotFit) {
  EXPECT_FALSE(fit_alpha_beta({{4096, 100}}, 14)) << "one size";
  EXPECT_FALSE(fit_alpha_beta({{4096, 100}, {4096, 120}}, 14)) << "one distinct size";
  EXPECT_FALSE(fit_alpha_beta({{4096, 100}, {8192, 0}}, 14)) << "a zero time";
  EXPECT_FALSE(fit_alpha_beta(exact_points(), 0)) << "no steps";
  EXPECT_FALSE(fit_alpha_beta({{4096, 200}, {65536, 100}}, 6)) << "the time falls with the size";
}

TEST(AllreduceAlgorithms, StepCountsAreThoseOfGloosAlgorithms) {
  EXPECT_EQ(allreduce_latency_steps("ring", 8), 14);
  EXPECT_EQ(allreduce_latency_steps("ring_chunked", 4), 6);
  EXPECT_EQ(allreduce_latency_steps("halving_doubling", 8), 6);
  EXPECT_EQ(allreduce_latency_steps("bcube", 4), 4);
  EXPECT_EQ(allreduce_latency_steps("tree", 8), 0);
  EXPECT_FALSE(is_allreduce_algorithm("tree"));
  EXPECT_EQ(allreduce_algorithm_list(), "ring, ring_chunked, halving_doubling or bcube");
}

// An 8-rank sweep as the allreduce workload writes it, every rank timing
// each size at `us(bytes)`.
std::vector<json> sweep(const char* algorithm, double alpha_us, int steps) {
  std::vector<json> events;
  for (int r = 0; r < 8; ++r) {
    json start = {{"event", "start"}, {"rank", r},     {"ts", 100.0},
                  {"world_size", 8},  {"steps", 4}};
    if (algorithm) start["algorithm"] = algorithm;
    events.push_back(start);
  }
  int step = 0;
  for (double size = 4096; size <= 1 << 20; size *= 8) {
    ++step;
    const double us = alpha_us * steps + size / 25;
    for (int r = 0; r < 8; ++r)
      events.push_back({{"event", "step"}, {"rank", r},       {"step", step},
                        {"ts", 100.0 + step}, {"step_ms", 10.0}, {"comm_ms", 10.0},
                        {"bytes", size},      {"size", size},    {"time_us", us},
                        {"wrong", 0},         {"ip_time_us", us}, {"ip_wrong", 0}});
  }
  return events;
}

TEST(AlphaBetaResult, FieldsComeFromTheSweepAndTheAlgorithmsSteps) {
  const ScenarioResult r = summarize_scenario(sweep("halving_doubling", 7000, 6));
  ASSERT_EQ(r.algorithm, "halving_doubling");
  ASSERT_TRUE(r.fit_steps);
  EXPECT_EQ(*r.fit_steps, 6);
  EXPECT_NEAR(*r.fit_alpha_ms, 7.0, 1e-9);
  EXPECT_NEAR(*r.fit_latency_ms, 42.0, 1e-9);
  EXPECT_NEAR(*r.fit_busbw_gb_per_s, 0.025 * 2 * 7 / 8, 1e-12);
  EXPECT_NEAR(*r.crossover_bytes, 42000 * 25, 1e-3);
  const json j = r;
  EXPECT_EQ(j["algorithm"], "halving_doubling");
  EXPECT_NEAR(j["crossover_bytes"].get<double>(), 1050000, 1e-3);
}

TEST(AlphaBetaResult, ARecordingFromBeforeTheAlgorithmHasNoFit) {
  const ScenarioResult r = summarize_scenario(sweep(nullptr, 7000, 6));
  EXPECT_FALSE(r.algorithm);
  EXPECT_FALSE(r.fit_steps);
  const json j = r;
  EXPECT_FALSE(j.contains("algorithm"));
  EXPECT_FALSE(j.contains("crossover_bytes"));
}

TEST(AlphaBetaTable, ShowsEachFitAndMarksTheFastestPerSize) {
  std::vector<ScenarioSummary> summaries(2);
  summaries[0].name = "ring-5ms";
  summaries[0].result = summarize_scenario(sweep("ring", 10000, 14));
  summaries[1].name = "hd-5ms";
  summaries[1].result = summarize_scenario(sweep("halving_doubling", 7000, 6));
  const std::string table = format_alpha_beta_table(summaries);
  EXPECT_NE(table.find("ring-5ms       ring                 14    10.00      140.0"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("hd-5ms         halving_doubling      6     7.00       42.0"),
            std::string::npos)
      << table;
  // 4 KiB: ring 140.2 ms, halving-doubling 42.2: the * on the second.
  EXPECT_NE(table.find("    4 KiB     140.2 (  140.2)       42.2 (   42.2)*"), std::string::npos)
      << table;
  EXPECT_EQ(format_alpha_beta_table({}), "");
}

TEST(AlphaBetaChart, PlotsEachFitsMeasuredPointsAndItsModel) {
  std::vector<ScenarioSeries> series(2);
  series[0].name = "ring-5ms";
  series[0].result = summarize_scenario(sweep("ring", 10000, 14));
  series[1].name = "old";  // no algorithm in its start events: no fit, not drawn
  series[1].result = summarize_scenario(sweep(nullptr, 10000, 14));
  const std::string script = alpha_beta_chart_script(series, "t", "alpha_beta_fit.svg");
  // 4 KiB: measured = model = 140 ms + 4096 / 25 us.
  EXPECT_NE(script.find("$fit0 << EOD\n# ring-5ms: size_bytes measured_ms model_ms\n4096 140.16384 "
                        "140.16384\n"),
            std::string::npos)
      << script;
  EXPECT_NE(script.find("$fit0 using 1:3 with lines"), std::string::npos) << script;
  EXPECT_EQ(script.find("$fit1"), std::string::npos) << "the series without a fit";
  EXPECT_NE(alpha_beta_chart_script({}, "t", "x.svg").find("plot $fit0"), std::string::npos)
      << "an empty chart is still a valid script";
}

TEST(AlphaBetaTable, SizesAsTheyAreRead) {
  EXPECT_EQ(format_size(512), "512 B");
  EXPECT_EQ(format_size(4096), "4 KiB");
  EXPECT_EQ(format_size(1.5 * (1 << 20)), "1.5 MiB");
}

}  // namespace
}  // namespace fabriclab::runner::report
