// `fabriclab topo` on the shipped labs: the table without building anything,
// and --check, which builds the network and asks the real traceroute.
#include <gtest/gtest.h>

#include <fstream>

#include "common/build_paths.h"
#include "tests/runner/test_support.h"
#include "tests/support/child_process.h"
#include "tests/support/ci_skip.h"

namespace fabriclab {
namespace {

using testing::run_command;

std::vector<std::string> topo(std::vector<std::string> args) {
  args.insert(args.begin(), {fabriclab::build_paths::fabriclab_binary(), "topo", "--labs",
                             std::string(fabriclab::build_paths::source_dir()) + "/labs"});
  return args;
}

TEST(TopoCommand, PrintsTheLabsNetworkWithoutBuildingIt) {
  const auto r = run_command(topo({"08"}));
  EXPECT_EQ(r.status.code, 0) << r.output;
  EXPECT_NE(r.output.find("fabric 'switch': 4 hosts, 1 switch, 4 links"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("r0 -> r3: r0 - sw - r3"), std::string::npos) << r.output;
  const auto bad = run_command(topo({"99"}));
  EXPECT_EQ(bad.status.code, 2) << bad.output;
}

TEST(TopoCommand, TracerouteAgreesWithTheDrawnPaths) {
  if (run_command({"/bin/sh", "-c", "command -v traceroute"}).status.code != 0)
    SKIP_OR_FAIL_IN_CI("traceroute is not installed (scripts/setup.sh installs it)");
  const auto before = runner::testing::run_netns_entries("fl-");
  for (const char* lab : {"02", "05"}) {  // a pair, and four ranks on a switch
    const auto r = run_command(topo({lab, "--check"}));
    EXPECT_EQ(r.status.code, 0) << r.output;
    EXPECT_NE(r.output.find("traceroute agrees with every drawn path"), std::string::npos)
        << r.output;
    EXPECT_EQ(r.output.find("MISMATCH"), std::string::npos) << r.output;
  }
  EXPECT_TRUE(runner::testing::new_netns_entries(before).empty()) << "namespaces left behind";
}

// A routed leaf-spine: one hop inside a rack, four across the spines
// (ToR, spine, ToR, host), as traceroute counts them inside the namespaces.
TEST(TopoCommand, LeafSpineHopsAgreeWithTraceroute) {
  if (run_command({"/bin/sh", "-c", "command -v traceroute"}).status.code != 0)
    SKIP_OR_FAIL_IN_CI("traceroute is not installed (scripts/setup.sh installs it)");
  const std::string labs = ::testing::TempDir() + "/fabriclab-topo-labs";
  const std::string folder = labs + "/91-leaf-spine";
  run_command({"/bin/mkdir", "-p", folder});
  std::ofstream(folder + "/lab.toml")
      << "[lab]\nid = \"91\"\ntitle = \"leaf-spine\"\n"
         "[topology]\nranks = 4\nkind = \"leaf_spine\"\n[[scenario]]\nname = \"clean\"\n";
  const auto r = run_command(
      {fabriclab::build_paths::fabriclab_binary(), "topo", "--labs", labs, "91", "--check"});
  EXPECT_EQ(r.status.code, 0) << r.output;
  EXPECT_NE(r.output.find("r0 -> r2: r0 - tor0 - spine0 - tor1 - r2"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("r0 -> r1 (10.77.1.2): traceroute 1 hop, drawn 1  ok"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("r3 -> r0 (10.77.1.1): traceroute 4 hops, drawn 4  ok"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("traceroute agrees with every drawn path"), std::string::npos);
  run_command({"/bin/rm", "-rf", labs});
}

}  // namespace
}  // namespace fabriclab
