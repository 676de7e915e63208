// `[[sweep]]`: expanded by the lab loader into one scenario per value, each
// carrying its sweep and value; bad sweeps fail at their own line (exit 2).
#include "runner/lab/sweep.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "common/input_error.h"
#include "runner/lab/lab_definition.h"
#include "tests/runner/lab/lab_file_test.h"
#include "tests/runner/test_support.h"

namespace fabriclab::runner {
namespace {

const char* kHead = "[lab]\nid = \"94\"\ntitle = \"t\"\n[topology]\nranks = 4\n";
// Line 6 is the [[sweep]] header; its keys follow from line 7.
const char* kSweep =
    "[[sweep]]\nname = \"loss\"\nvalues = [0, 0.5, 2]\nimpair = \"loss {}%\"\n"
    "links = [\"seed:lossy_rank\"]\nflow_probe_s = 2\n";

class SweepTest : public LabFileTest {
 protected:
  SweepTest() : LabFileTest("94-sweep", kHead) {}
};

TEST(SweepNames, ValueTextAndScenarioName) {
  EXPECT_EQ(sweep_value_text(0.5), "0.5");
  EXPECT_EQ(sweep_value_text(5), "5");
  EXPECT_EQ(sweep_scenario_name("loss", 0.1), "loss-0p1");
  EXPECT_EQ(sweep_scenario_name("delay", 20), "delay-20");
}

TEST_F(SweepTest, ExpandsIntoOneScenarioPerValueAfterTheWrittenOnes) {
  const LabDefinition lab =
      load_lab(write(std::string("[[scenario]]\nname = \"clean\"\n") + kSweep));
  ASSERT_EQ(lab.scenario_names(),
            (std::vector<std::string>{"clean", "loss-0", "loss-0p5", "loss-2"}));
  const ScenarioDefinition& half = lab.scenarios[2];
  EXPECT_EQ(half.impair(), "loss 0.5%");
  EXPECT_EQ(half.links, (std::vector<std::string>{"seed:lossy_rank"}));
  EXPECT_EQ(half.sweep, "loss");
  EXPECT_DOUBLE_EQ(half.sweep_value, 0.5);
  EXPECT_EQ(half.flow_probe_s, 2);
  EXPECT_EQ(half.baseline, "loss-0");  // the first value, not the written clean
  EXPECT_EQ(lab.scenarios[1].baseline, "loss-0");
  EXPECT_EQ(lab.scenarios[0].sweep, "");
  EXPECT_EQ(lab.scenarios[0].flow_probe_s, 0);
}

// The sweep parses each point's settings, once, at its own lines: the
// point's table leaves them out, so the lab reader cannot parse them again.
TEST(SweepPoints, CarryTheirSettingsParsed) {
  const toml::table root = toml::parse(kSweep);
  const std::vector<SweepPoint> points = expand_sweeps("lab.toml", root, 4);
  ASSERT_EQ(points.size(), 3u);
  EXPECT_EQ(points[1].link_settings.at("impair").text(), "loss 0.5%");
  EXPECT_FALSE(points[1].scenario.contains("impair"));
  EXPECT_EQ(points[1].scenario["name"].value_or(std::string()), "loss-0p5");
}

TEST_F(SweepTest, BaselineUnitAndQuickProbe) {
  const LabDefinition lab = load_lab(
      write(std::string(kSweep) + "baseline = 2\nunit = \"% loss\"\n[quick]\nflow_probe_s = 1\n"),
      /*quick=*/true);
  EXPECT_EQ(lab.scenarios[0].baseline, "loss-2");
  EXPECT_EQ(lab.scenarios[0].condition, "0% loss");
  EXPECT_EQ(lab.scenarios[1].flow_probe_s, 1);
}

TEST_F(SweepTest, ASettingWithoutThePlaceholderHoldsAtEveryPoint) {
  const LabDefinition lab = load_lab(write(
      std::string(kSweep) + "sysctl = \"net.ipv4.tcp_sack=0 net.ipv4.tcp_recovery=0\"\n"));
  ASSERT_EQ(lab.scenarios.size(), 3u);
  for (const ScenarioDefinition& point : lab.scenarios) {
    EXPECT_EQ(point.link_settings.at("sysctl").text(), "net.ipv4.tcp_sack=0 net.ipv4.tcp_recovery=0");
    EXPECT_EQ(point.links, (std::vector<std::string>{"seed:lossy_rank"}));
  }
  EXPECT_EQ(lab.scenarios[2].impair(), "loss 2%");
}

// A sweep's own workload (lab 14: the same loss sweep over TCP beside the
// lab's RoCE one): every point runs it, the baseline point too, so each
// point's slowdown compares one job; the lab's other scenarios keep theirs.
TEST_F(SweepTest, AWorkloadOfItsOwnHoldsAtEveryPoint) {
  const LabDefinition lab = load_lab(write(
      std::string("[workload]\nkind = \"allreduce\"\ntransport = \"roce\"\n"
                  "[[scenario]]\nname = \"clean\"\n") +
      kSweep + "workload = { transport = \"tcp\" }\n"));
  ASSERT_EQ(lab.scenarios.size(), 4u);
  EXPECT_EQ(lab.scenarios[0].workload.param("transport"), "roce");
  for (size_t i = 1; i < lab.scenarios.size(); ++i)
    EXPECT_EQ(lab.scenarios[i].workload.param("transport"), "tcp") << lab.scenarios[i].name;
  EXPECT_EQ(lab.scenarios[2].baseline, "loss-0");
}

TEST_F(SweepTest, BadSweepsNameTheirLine) {
  const std::string head = "[[sweep]]\nname = \"loss\"\n";  // lines 6, 7
  EXPECT_NE(
      error(head + "values = [1, 0.5]\nimpair = \"loss {}%\"\n").find("lab.toml:8: key 'values'"),
      std::string::npos);
  EXPECT_NE(error(head + "values = [1]\nimpair = \"loss 1%\"\n").find("lab.toml:9: key 'impair'"),
            std::string::npos);
  EXPECT_NE(error(head + "values = [5, 120]\nimpair = \"loss {}%\"\n").find("with 120"),
            std::string::npos);
  EXPECT_NE(error(head + "values = [1]\nimpair = \"loss {}%\"\nlinks = [\"r9\"]\n")
                .find("lab.toml:10: key 'links'"),
            std::string::npos);
  EXPECT_NE(error(head + "values = [1]\nimpair = \"loss {}%\"\nbaseline = 3\n")
                .find("lab.toml:10: key 'baseline'"),
            std::string::npos);
  EXPECT_NE(error(head + "values = [1]\nimpair = \"loss {}%\"\nspeed = 3\n")
                .find("lab.toml:10: unknown key 'speed'"),
            std::string::npos);
  EXPECT_NE(error(head + "values = []\n").find("key 'values'"), std::string::npos);
  EXPECT_NE(error(head + "values = [1]\n").find("sets nothing"), std::string::npos);
  // Settings, but none swept: the line of the first in link_setting_keys().
  EXPECT_NE(error(head + "values = [1]\nsysctl = \"net.ipv4.tcp_sack=0\"\nimpair = \"loss 1%\"\n")
                .find("lab.toml:10: key 'impair'"),
            std::string::npos);
  EXPECT_NE(
      error("[[scenario]]\nname = \"loss-1\"\n" + head + "values = [1]\nimpair = \"loss {}%\"\n")
          .find("defined twice"),
      std::string::npos);
}

}  // namespace
}  // namespace fabriclab::runner
