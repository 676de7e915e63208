// A lab that asks for what this host does not allow is refused before
// anything is built, naming the host setting and what to change.
#include "runner/scenario/host_preflight.h"

#include <gtest/gtest.h>

#include <fstream>

#include "tests/runner/lab/lab_file_test.h"

namespace fabriclab::runner {
namespace {

class HostPreflight : public LabFileTest {
 protected:
  HostPreflight() : LabFileTest("94-preflight", "[lab]\nid = \"94\"\ntitle = \"t\"\n") {}

  std::string refusal(const std::string& body) {
    const LabDefinition lab = load_lab(write(body));
    std::vector<const ScenarioDefinition*> scenarios;
    for (const ScenarioDefinition& s : lab.scenarios) scenarios.push_back(&s);
    try {
      refuse_what_this_host_cannot_run(lab, scenarios);
    } catch (const HostRefusesLab& e) {
      return e.what();
    }
    return "";
  }
};

std::string host_allowed() {
  std::ifstream in("/proc/sys/net/ipv4/tcp_allowed_congestion_control");
  std::string line;
  std::getline(in, line);
  return line;
}

TEST_F(HostPreflight, RenoIsAllowedEverywhere) {
  EXPECT_EQ(refusal("[topology]\nsysctl = \"net.ipv4.tcp_congestion_control=reno\"\n"
                    "[[scenario]]\nname = \"clean\"\n"),
            "");
}

TEST_F(HostPreflight, ACongestionControlTheHostDoesNotAllowIsRefusedWithTheFix) {
  const std::string why =
      refusal("[[scenario]]\nname = \"clean\"\n"
              "[[scenario]]\nname = \"odd\"\nlinks = [\"all\"]\n"
              "sysctl = \"net.ipv4.tcp_congestion_control=nosuchcc\"\n");
  EXPECT_NE(why.find("lab 94 cannot run on this host as it is:"), std::string::npos) << why;
  EXPECT_NE(why.find("scenario odd: sysctl: the lab runs its namespaces with "
                     "net.ipv4.tcp_congestion_control=nosuchcc"),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("net.ipv4.tcp_allowed_congestion_control = \"" + host_allowed() + "\""),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("sysctl -w net.ipv4.tcp_allowed_congestion_control=\"" + host_allowed() +
                     " nosuchcc\""),
            std::string::npos)
      << why;
}

}  // namespace
}  // namespace fabriclab::runner
