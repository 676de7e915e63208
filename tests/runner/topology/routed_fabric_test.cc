// What the routers do when an uplink fails (runner/topology/routed_fabric.h,
// plan_uplink_reroute) on the leaf_spine graph: which routes lose a next
// hop, with the addresses the full plan gave, and what is put back (unit).
#include "runner/topology/routed_fabric.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace fabriclab::runner {
namespace {

std::string hops_of(const RoutePlan& route) {
  std::string out;
  for (const NextHopPlan& hop : route.hops) out += (out.empty() ? "" : ",") + hop.device;
  return out;
}

TEST(UplinkReroute, TheToRsRoutesLoseTheFailedSpineOnly) {
  const FabricGraph graph = draw_fabric("leaf_spine", 4);
  const RoutedPlan full = plan_routed_fabric(graph);
  const UplinkReroute reroute = plan_uplink_reroute(graph, "tor0-spine0");
  EXPECT_EQ(reroute.failed.a, "tor0");
  EXPECT_EQ(reroute.failed.b, "spine0");
  EXPECT_EQ(reroute.failed.b_device, "to-tor0");
  ASSERT_EQ(reroute.withdraw.size(), 2u);
  for (const RoutePlan& route : reroute.withdraw) {
    EXPECT_EQ(hops_of(route), "to-spine1") << route.node;
    // The surviving next hop keeps the full plan's address.
    bool found = false;
    for (const RoutePlan& was : full.routes) {
      if (was.node != route.node || was.destination != route.destination) continue;
      EXPECT_EQ(hops_of(was), "to-spine0,to-spine1");
      for (const NextHopPlan& hop : was.hops)
        if (hop.device == "to-spine1") found = hop.gateway == route.hops[0].gateway;
    }
    EXPECT_TRUE(found) << route.node;
  }
  EXPECT_EQ(reroute.withdraw[0].node == "tor0" ? reroute.withdraw[0].destination
                                               : reroute.withdraw[1].destination,
            "10.77.2.0");
  // Restored: the two ToR routes as they were, and spine0's routes (its
  // port going down flushed the one through it).
  int spine0 = 0;
  for (const RoutePlan& route : reroute.restore) {
    if (route.node == "spine0") ++spine0;
    else EXPECT_EQ(hops_of(route), "to-spine0,to-spine1") << route.node;
  }
  EXPECT_EQ(spine0, 2);
  EXPECT_EQ(reroute.restore.size(), 4u);
}

TEST(UplinkReroute, RefusesANameThatIsNoRouterLink) {
  const FabricGraph graph = draw_fabric("leaf_spine", 4);
  EXPECT_THROW(plan_uplink_reroute(graph, "tor0-spine7"), std::invalid_argument);
  EXPECT_THROW(plan_uplink_reroute(graph, "r0-tor0"), std::invalid_argument);
}

}  // namespace
}  // namespace fabriclab::runner
