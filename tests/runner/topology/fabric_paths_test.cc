// Paths through a fabric graph and the table `fabriclab topo` prints: hops
// count routers only (a bridge is layer 2), paths never cross a host.
#include "runner/topology/fabric_paths.h"

#include <gtest/gtest.h>

#include "runner/topology/fabric_view.h"

namespace fabriclab::runner {
namespace {

TEST(FabricPaths, ASwitchIsOneBridgeAndOneIpHop) {
  const FabricGraph graph = draw_fabric("switch", 4);
  const FabricPath path = fabric_path(graph, "r0", "r3");
  EXPECT_EQ(path.nodes, (std::vector<std::string>{"r0", "sw", "r3"}));
  EXPECT_EQ(path.switches, 1);
  EXPECT_EQ(path.routers, 0);
  EXPECT_EQ(path.ip_hops(), 1);
  EXPECT_EQ(host_of_rank(graph, 2), "r2");
}

TEST(FabricPaths, RoutersAreHopsAndHostsForwardNothing) {
  // r0 - tor1 - spine - tor2 - r1, and a shortcut through host r2 that a
  // path must not take (hosts do not forward).
  FabricGraph graph{"test",
                    {{"r0", false, 0}, {"r1", false, 1}, {"r2", false, 2}},
                    {{"tor1", true, -1, true}, {"spine", true, -1, true}, {"tor2", true, -1, true}},
                    {{"r0-tor1", "r0", "tor1"},
                     {"r2-tor1", "r2", "tor1"},
                     {"r2-tor2", "r2", "tor2"},
                     {"tor1-spine", "tor1", "spine"},
                     {"spine-tor2", "spine", "tor2"},
                     {"r1-tor2", "r1", "tor2"}}};
  const FabricPath path = fabric_path(graph, "r0", "r1");
  EXPECT_EQ(path.nodes, (std::vector<std::string>{"r0", "tor1", "spine", "tor2", "r1"}));
  EXPECT_EQ(path.routers, 3);
  EXPECT_EQ(path.ip_hops(), 4);
  EXPECT_THROW(fabric_path(graph, "r0", "spine"), std::invalid_argument);
  EXPECT_THROW(fabric_path(graph, "r0", "r9"), std::invalid_argument);
}

TEST(FabricView, ListsHostsSwitchesLinksAndEveryPairsPath) {
  const std::string text = format_fabric(draw_fabric("switch", 3));
  EXPECT_NE(text.find("fabric 'switch': 3 hosts, 1 switch, 3 links"), std::string::npos) << text;
  EXPECT_NE(text.find("bridge (layer 2"), std::string::npos);
  EXPECT_NE(text.find("r1-sw"), std::string::npos);
  EXPECT_NE(text.find("r0 -> r2: r0 - sw - r2"), std::string::npos) << text;
  EXPECT_NE(text.find("1 switch, 1 IP hop"), std::string::npos);
  // Many ranks: the pairs are summarized after the first ones.
  const std::string many = format_fabric(draw_fabric("switch", 16), 4);
  EXPECT_NE(many.find("... 120 pairs in all: 120 with 1 switch, 1 IP hop;"), std::string::npos) << many;
  EXPECT_NE(format_fabric(draw_fabric("single", 1)).find("loopback"), std::string::npos);
}

}  // namespace
}  // namespace fabriclab::runner
