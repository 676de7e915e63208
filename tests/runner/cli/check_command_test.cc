// `fabriclab check` end to end: the real binary, real namespaces, the
// userspace backend. A lab whose settings the kernel takes passes with the
// delay seen in the round trip; one whose setting the kernel refuses fails
// naming the scenario, the setting and the kernel's answer; neither leaves
// a namespace behind.
#include <gtest/gtest.h>

#include <chrono>
#include <regex>
#include <string>

#include "common/build_paths.h"
#include "tests/runner/lab_files.h"
#include "tests/runner/test_support.h"
#include "tests/support/child_process.h"

namespace fabriclab::runner {
namespace {

using namespace std::chrono_literals;
using fabriclab::testing::run_command;

class CheckCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SKIP_UNLESS_NETNS_PRIVILEGES();
    labs_ = dir_.path() + "/labs";
  }
  fabriclab::testing::RunResult check(const std::string& scenarios) {
    testing::write_lab(labs_, "model = \"mlp\"\nsteps = 2\n", scenarios);
    return run_command({fabriclab::build_paths::fabriclab_binary(), "check", "92", "--labs", labs_,
                        "--backend", "userspace"},
                       {}, 120s);
  }
  testing::TempDir dir_;
  std::string labs_;
};

TEST_F(CheckCommandTest, AppliedSettingsAreReadBackAndTheDelayShowsInTheRoundTrip) {
  const auto before = testing::run_netns_entries("fl-");
  const auto r = check(testing::scenario("clean", "", 60, 20) +
                       testing::scenario("latency", "delay 40ms", 60, 20));
  EXPECT_EQ(r.status.code, 0) << r.output;
  EXPECT_NE(r.output.find("  clean              ok"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("  latency            ok   2 setting(s) read back; r0->r1 "),
            std::string::npos)
      << r.output;
  // 40 ms each way: the round trip is at least 80 ms (a delay never ends early).
  std::smatch m;
  const std::string latency = r.output.substr(r.output.find("  latency "));
  ASSERT_TRUE(std::regex_search(latency, m, std::regex(R"(r0->r1 \d+/10 rtt ([0-9.]+) ms)")))
      << r.output;
  EXPECT_GE(std::stod(m[1]), 80.0) << r.output;
  EXPECT_NE(r.output.find("lab 92: every scenario applied, read back and carried traffic"),
            std::string::npos)
      << r.output;
  EXPECT_TRUE(testing::new_netns_entries(before).empty()) << "namespaces left behind";
}

TEST_F(CheckCommandTest, ASettingTheKernelRefusesFailsNamingScenarioSettingAndAnswer) {
  const auto before = testing::run_netns_entries("fl-");
  const auto r = check(testing::scenario("clean", "", 60, 20) +
                       "[[scenario]]\nname = \"odd\"\nlinks = [\"all\"]\n"
                       "sysctl = \"net.ipv4.tcp_ecn=7\"\n");
  EXPECT_EQ(r.status.code, 1) << r.output;
  EXPECT_NE(r.output.find("  odd                FAILED  sysctl \"net.ipv4.tcp_ecn=7\" could not "
                          "be applied: sysctl net.ipv4.tcp_ecn=7: the kernel refused it"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("lab 92: 1 of 2 scenarios failed"), std::string::npos) << r.output;
  EXPECT_TRUE(testing::new_netns_entries(before).empty()) << "namespaces left behind";
}

}  // namespace
}  // namespace fabriclab::runner
