// The one hottest-uplink computation shared by the result row and the live
// status line.
#include "runner/report/result/uplink_load.h"

#include <gtest/gtest.h>

namespace fabriclab::runner::report {
namespace {

TEST(UplinkLoad, TheHottestCarriedTheMostAndTheFirstByNameWinsATie) {
  const UplinkLoad load =
      uplink_load({{"tor0-spine0", 300}, {"tor0-spine1", 100}, {"tor1-spine0", 300}});
  EXPECT_EQ(load.total_bytes, 700);
  EXPECT_EQ(load.hottest, "tor0-spine0");
  EXPECT_EQ(load.hottest_bytes, 300);
  ASSERT_TRUE(load.hottest_share);
  EXPECT_DOUBLE_EQ(*load.hottest_share, 300.0 / 700.0);
}

TEST(UplinkLoad, UplinksThatCarriedNothingHaveNoHottest) {
  const UplinkLoad load = uplink_load({{"tor0-spine0", 0}, {"tor0-spine1", 0}});
  EXPECT_EQ(load.total_bytes, 0);
  EXPECT_FALSE(load.hottest);
  EXPECT_FALSE(load.hottest_share);
}

}  // namespace
}  // namespace fabriclab::runner::report
