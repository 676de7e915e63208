#include "trainer/bucket_plan.h"

#include <gtest/gtest.h>

#include <set>

#include "common/input_error.h"

namespace fabriclab::trainer {
namespace {

TEST(BucketPlan, FillsInReverseParameterOrder) {
  const auto buckets = plan_buckets({10, 20, 30, 40}, 1000, 1000);
  ASSERT_EQ(buckets.size(), 1u);
  EXPECT_EQ(buckets[0].params, (std::vector<int>{3, 2, 1, 0}));
  EXPECT_EQ(buckets[0].bytes, 100);
}

TEST(BucketPlan, FirstBucketIsSmallLaterOnesUseTheCap) {
  // Sizes in bytes; first cap 50, later cap 100.
  const auto buckets = plan_buckets({40, 40, 40, 40, 30, 30}, 50, 100);
  ASSERT_EQ(buckets.size(), 3u);
  EXPECT_EQ(buckets[0].params, (std::vector<int>{5, 4}));  // 60 >= 50: closes
  EXPECT_EQ(buckets[1].params, (std::vector<int>{3, 2, 1}));  // 120 >= 100
  EXPECT_EQ(buckets[2].params, (std::vector<int>{0}));  // remainder
  EXPECT_EQ(buckets[2].bytes, 40);
}

TEST(BucketPlan, OversizedParameterGetsABucketAlone) {
  const auto buckets = plan_buckets({5, 500, 5}, 10, 10);
  ASSERT_EQ(buckets.size(), 2u);
  EXPECT_EQ(buckets[0].params, (std::vector<int>{2, 1}));
  EXPECT_EQ(buckets[1].params, (std::vector<int>{0}));
}

TEST(BucketPlan, EveryParameterExactlyOnceWithDdpDefaults) {
  // The lab-02 MLP (width 128): W1, b1, W2, b2, W3, b3 in fp32 bytes.
  const std::vector<int64_t> sizes = {784 * 128 * 4, 128 * 4, 128 * 128 * 4, 128 * 4, 128 * 10 * 4, 40};
  const auto buckets = plan_buckets(sizes);
  std::multiset<int> seen;
  int64_t total = 0;
  for (const auto& b : buckets) {
    seen.insert(b.params.begin(), b.params.end());
    total += b.bytes;
  }
  EXPECT_EQ(seen, (std::multiset<int>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(total, 118282 * 4);
  EXPECT_EQ(buckets.size(), 1u);  // 473 KB < DDP's 1 MiB first bucket
}

TEST(BucketPlan, EmptyModelHasNoBuckets) { EXPECT_TRUE(plan_buckets({}).empty()); }

TEST(BucketPlan, RejectsNonPositiveCaps) {
  EXPECT_THROW(plan_buckets({1}, 0, 10), InputError);
  EXPECT_THROW(plan_buckets({1}, 10, -1), InputError);
}

}  // namespace
}  // namespace fabriclab::trainer
