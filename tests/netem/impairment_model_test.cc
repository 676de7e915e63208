// The userspace backend's netem model without any network: the decisions it
// makes for a spec, checked against what sch_netem's code implies.
#include "netem/impairment_model.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "common/input_error.h"
#include "netem/netlink/distribution_table.h"
#include "netem/spec_parse.h"
#include "tests/support/ci_skip.h"

namespace fabriclab::netem {
namespace {

std::vector<PacketFate> draw(const std::string& spec, int n, uint64_t seed = 1) {
  ImpairmentModel model(parse_spec(spec), seed);
  std::vector<PacketFate> fates;
  for (int i = 0; i < n; ++i) fates.push_back(model.next());
  return fates;
}

TEST(ImpairmentModelTest, FixedDelayIsExactAndKeepsOrder) {
  for (const PacketFate& f : draw("delay 100ms", 100)) {
    EXPECT_FALSE(f.drop);
    EXPECT_EQ(f.delay_ns, 100'000'000);
  }
  EXPECT_TRUE(ImpairmentModel(parse_spec("delay 100ms"), 1).keeps_order());
  EXPECT_FALSE(ImpairmentModel(parse_spec("delay 100ms 1ms"), 1).keeps_order());
}

TEST(ImpairmentModelTest, UniformJitterCoversTheRangeAndNothingElse) {
  double sum = 0;
  int64_t lo = INT64_MAX, hi = 0;
  const int n = 20000;
  for (const PacketFate& f : draw("delay 10ms 2ms", n)) {
    lo = std::min(lo, f.delay_ns);
    hi = std::max(hi, f.delay_ns);
    sum += static_cast<double>(f.delay_ns);
  }
  EXPECT_GE(lo, 8'000'000);
  EXPECT_LT(hi, 12'000'000);
  EXPECT_LT(lo, 8'010'000);  // reaches both ends
  EXPECT_GT(hi, 11'990'000);
  EXPECT_NEAR(sum / n, 10e6, 0.05e6);
}

TEST(ImpairmentModelTest, NormalJitterHasTheConfiguredSpread) {
  const int n = 40000;
  double sum = 0, sq = 0;
  for (const PacketFate& f : draw("delay 50ms 5ms distribution normal", n)) {
    double x = static_cast<double>(f.delay_ns) / 1e6;
    sum += x;
    sq += x * x;
  }
  double mean = sum / n, sd = std::sqrt(sq / n - mean * mean);
  EXPECT_NEAR(mean, 50.0, 0.15);
  EXPECT_NEAR(sd, 5.0, 0.15);
}

TEST(ImpairmentModelTest, ComputedTablesMatchTheOnesIproute2Ships) {
  for (Distribution d :
       {Distribution::kNormal, Distribution::kPareto, Distribution::kParetoNormal}) {
    std::vector<int16_t> shipped;
    try {
      shipped = netlink::load_distribution(d);
    } catch (const std::exception& e) {
      SKIP_OR_FAIL_IN_CI("iproute2's .dist files are not installed: " << e.what());
    }
    std::vector<int16_t> computed = distribution_table(d);
    ASSERT_EQ(computed.size(), shipped.size());
    for (size_t i = 0; i < computed.size(); ++i) {
      // iproute2's generator samples the CDF on a 5e-5 grid: +-1 unit.
      ASSERT_NEAR(computed[i], shipped[i], 1) << distribution_name(d) << " entry " << i;
    }
  }
}

TEST(ImpairmentModelTest, RandomLossRateAndCorrelation) {
  const int n = 100000;
  int lost = 0, runs_after_loss = 0;
  bool prev = false;
  for (const PacketFate& f : draw("loss 5%", n)) {
    lost += f.drop;
    runs_after_loss += prev && f.drop;
    prev = f.drop;
  }
  EXPECT_NEAR(lost, 5000, 5 * std::sqrt(n * 0.05 * 0.95));
  EXPECT_NEAR(runs_after_loss, lost * 0.05, 60);  // independent: P(loss | loss) = P
  // netem's correlation makes a loss after a loss likelier than the average
  // -- and, as in the kernel (its get_crandom() averages draws, narrowing
  // their spread), lowers the overall rate well below P: 30% 50% gives ~13%.
  lost = 0;
  runs_after_loss = 0;
  prev = false;
  for (const PacketFate& f : draw("loss 30% 50%", n)) {
    lost += f.drop;
    runs_after_loss += prev && f.drop;
    prev = f.drop;
  }
  const double rate = static_cast<double>(lost) / n;
  EXPECT_NEAR(rate, 0.13, 0.01);
  EXPECT_GT(static_cast<double>(runs_after_loss) / lost, 1.5 * rate);
}

TEST(ImpairmentModelTest, GilbertElliottLosesInBursts) {
  // p = 1%, r = 30%, bad state loses everything (1-h = 100%), good nothing.
  const int n = 200000;
  int lost = 0;
  for (const PacketFate& f : draw("loss gemodel 1% 30% 100% 0%", n)) lost += f.drop;
  // Stationary share of the bad state: p / (p + r) = 1/31.
  EXPECT_NEAR(static_cast<double>(lost) / n, 1.0 / 31, 0.004);
}

TEST(ImpairmentModelTest, ReorderSendsEveryGapthPacketAtOnceWithProbability) {
  int immediate = 0;
  const int n = 10000;
  for (const PacketFate& f : draw("delay 10ms reorder 100% gap 5", n)) {
    immediate += f.delay_ns == 0;
  }
  EXPECT_EQ(immediate, n / 5);  // 100%: exactly one in five
}

TEST(ImpairmentModelTest, SameSeedSameDecisions) {
  auto a = draw("delay 10ms 5ms 25% loss 3% 10%", 1000, 99);
  auto b = draw("delay 10ms 5ms 25% loss 3% 10%", 1000, 99);
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].drop, b[i].drop);
    ASSERT_EQ(a[i].delay_ns, b[i].delay_ns);
  }
}

TEST(ImpairmentModelTest, RefusesWordsItCannotReproduce) {
  for (const char* spec :
       {"delay 1ms duplicate 1%", "delay 1ms corrupt 1%", "loss 1% ecn", "slot 1ms 2ms"}) {
    EXPECT_THROW(ImpairmentModel::check_supported(parse_spec(spec)), InputError) << spec;
  }
  EXPECT_NO_THROW(ImpairmentModel::check_supported(parse_spec(
      "delay 10ms 2ms 10% distribution normal loss 1% 25% reorder 5% gap 3 limit 5000")));
  // rate is served by the queue worker's serializer, not the per-packet model.
  EXPECT_NO_THROW(ImpairmentModel::check_supported(parse_spec("delay 1ms rate 1mbit")));
}

}  // namespace
}  // namespace fabriclab::netem
