// Slurm's compressed host lists (common/slurm_nodelist.h) expanded as
// `scontrol show hostnames` expands them, and malformed ones refused with
// the position and what was expected.
#include "common/slurm_nodelist.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace fabriclab {
namespace {

using Hosts = std::vector<std::string>;

TEST(SlurmNodelist, ExpandsRangesListsAndProducts) {
  EXPECT_EQ(expand_slurm_nodelist("node07"), Hosts{"node07"});
  EXPECT_EQ(expand_slurm_nodelist("node[01-04,07]"),
            (Hosts{"node01", "node02", "node03", "node04", "node07"}));
  EXPECT_EQ(expand_slurm_nodelist("gpu[8-10],login"), (Hosts{"gpu8", "gpu9", "gpu10", "login"}));
  EXPECT_EQ(expand_slurm_nodelist("n[098-101]"), (Hosts{"n098", "n099", "n100", "n101"}))
      << "the lower bound's padding is kept";
  EXPECT_EQ(expand_slurm_nodelist("a[1-2]-b[3-4],c"),
            (Hosts{"a1-b3", "a1-b4", "a2-b3", "a2-b4", "c"}))
      << "the rightmost group varies fastest";
  EXPECT_EQ(expand_slurm_nodelist("rack1-n[2]"), Hosts{"rack1-n2"});
}

TEST(SlurmNodelist, MalformedListsSayWhereAndWhat) {
  const auto error = [](const std::string& list) {
    try {
      expand_slurm_nodelist(list);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_NE(error("").find("expected at least one host"), std::string::npos);
  EXPECT_NE(error("node[01-04").find("at character 5: a '[' that is never closed"), std::string::npos)
      << error("node[01-04");
  EXPECT_NE(error("node[04-01]").find("the range 04-01 runs backwards"), std::string::npos);
  EXPECT_NE(error("node[a-c]").find("expected a number or a range"), std::string::npos);
  EXPECT_NE(error("a,,b").find("an empty host name"), std::string::npos);
  EXPECT_NE(error("node]1").find("a ']' without its '['"), std::string::npos);
  EXPECT_NE(error("n[1-[2]]").find("nest"), std::string::npos) << error("n[1-[2]]");
  EXPECT_NE(error("n[0-99999]x[0-99]").find("more than 65536 hosts"), std::string::npos);
}

}  // namespace
}  // namespace fabriclab
