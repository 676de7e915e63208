// Which labs host mode runs on how many hosts (host_mode_fit.h), read from
// the labs as shipped; and the hosts file (`--hosts-file`).
#include "runner/host/host_mode_fit.h"
#include "common/build_paths.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "common/input_error.h"
#include "runner/host/host_roster.h"
#include "runner/lab/lab_definition.h"

namespace fabriclab::runner::host {
namespace {

LabDefinition shipped(const std::string& folder) {
  return load_lab(std::string(fabriclab::build_paths::source_dir()) + "/labs/" + folder +
                  "/lab.toml");
}

std::vector<const ScenarioDefinition*> all_of(const LabDefinition& lab) {
  std::vector<const ScenarioDefinition*> all;
  for (const ScenarioDefinition& s : lab.scenarios) all.push_back(&s);
  return all;
}

// The InputError's text, "" when none was thrown.
template <typename Call>
std::string refusal(Call call) {
  try {
    call();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(HostModeFit, FourRanksRunOnFourHostsOrTwoHostsOfTwo) {
  const LabDefinition lab = shipped("05-one-slow-path");
  EXPECT_EQ(fit_lab_to_hosts(lab, all_of(lab), 4, 0), 1);
  EXPECT_EQ(fit_lab_to_hosts(lab, all_of(lab), 2, 0), 2);
  EXPECT_EQ(fit_lab_to_hosts(lab, all_of(lab), 2, 2), 2);
  const std::string three = refusal([&] { fit_lab_to_hosts(lab, all_of(lab), 3, 0); });
  EXPECT_NE(three.find("lab 05 runs 4 ranks; 3 hosts cannot share them evenly"), std::string::npos)
      << three;
  EXPECT_NE(three.find("4 hosts, or 2 hosts with --ranks-per-host 2"), std::string::npos) << three;
  const std::string too_many = refusal([&] { fit_lab_to_hosts(lab, all_of(lab), 4, 2); });
  EXPECT_NE(too_many.find("4 hosts x 2 rank(s) per host make 8"), std::string::npos) << too_many;
  EXPECT_NE(refusal([&] { fit_lab_to_hosts(lab, all_of(lab), 5, 0); }).find("5 hosts are more"),
            std::string::npos);
}

TEST(HostModeFit, OneRankLabsAndNamespaceFabricsAreRefused) {
  const LabDefinition one = shipped("01-training-loop");
  EXPECT_NE(refusal([&] { fit_lab_to_hosts(one, all_of(one), 2, 0); }).find("runs 1 rank"),
            std::string::npos);
  const LabDefinition leaf_spine = shipped("09-placement");
  const std::string why = refusal([&] { fit_lab_to_hosts(leaf_spine, all_of(leaf_spine), 4, 0); });
  EXPECT_NE(why.find("lab 09 needs a leaf_spine fabric"), std::string::npos) << why;
  EXPECT_NE(why.find("without --hosts"), std::string::npos) << why;
}

TEST(HostModeFit, ImpairedScenariosWhoseRanksShareOneHostAreRefused) {
  const LabDefinition lab = shipped("10-slowest-of-n");
  EXPECT_EQ(fit_lab_to_hosts(lab, all_of(lab), 16, 0), 1);
  const std::string why = refusal([&] { fit_lab_to_hosts(lab, all_of(lab), 2, 0); });
  for (const char* name : {"tail-2: its 2 rank(s)", "tail-4: its 4", "tail-8: its 8"})
    EXPECT_NE(why.find(name), std::string::npos) << why;
  EXPECT_EQ(why.find("tail-16"), std::string::npos) << why;
  EXPECT_EQ(why.find("clean-2"), std::string::npos) << why;  // nothing on its links
  EXPECT_NE(why.find("run lab 10 on 16 hosts"), std::string::npos) << why;
  // Lab 03's two-rank scenarios set nothing on their links: still fine.
  const LabDefinition lab03 = shipped("03-gradient-traffic");
  EXPECT_EQ(fit_lab_to_hosts(lab03, all_of(lab03), 2, 0), 2);
}

TEST(HostModeFit, SwitchQueueScenariosAreRefusedAndTheOthersNamed) {
  const LabDefinition lab = shipped("08-congestion-without-casualties");
  const std::string why = refusal([&] { fit_lab_to_hosts(lab, all_of(lab), 4, 0); });
  for (const char* name : {"taildrop: a queue", "ecn: a queue", "lossless: a queue"})
    EXPECT_NE(why.find(name), std::string::npos) << why;
  EXPECT_NE(why.find("run only the others: --scenario clean"), std::string::npos) << why;
  // Its clean scenario alone fits.
  EXPECT_EQ(fit_lab_to_hosts(lab, {&lab.scenarios.front()}, 4, 0), 1);
}

TEST(HostRoster, ReadsAHostFileAndNamesTheLineOfABadEntry) {
  const std::string path = ::testing::TempDir() + "hosts-" + std::to_string(::getpid()) + ".txt";
  auto write = [&](const std::string& text) { std::ofstream(path) << text; };
  write("# lab hosts\n10.0.0.1\n\n  10.0.0.2   # second\n10.0.0.3\n");
  EXPECT_EQ(read_host_file(path), (std::vector<std::string>{"10.0.0.1", "10.0.0.2", "10.0.0.3"}));
  write("10.0.0.1\n10.0.0.2\n# again:\n10.0.0.1\n");
  std::string why = refusal([&] { read_host_file(path); });
  EXPECT_NE(why.find(path + ":4: 10.0.0.1 is listed twice (first on line 1)"), std::string::npos)
      << why;
  write("10.0.0.1 10.0.0.2\n");
  why = refusal([&] { read_host_file(path); });
  EXPECT_NE(why.find(path + ":1: expected one host a line"), std::string::npos) << why;
  write("# only one\n10.0.0.1\n");
  why = refusal([&] { read_host_file(path); });
  EXPECT_NE(why.find("expected at least two hosts, one a line; found 1"), std::string::npos) << why;
  std::remove(path.c_str());
  EXPECT_NE(refusal([&] { read_host_file(path); }).find("cannot read it"), std::string::npos);
}

}  // namespace
}  // namespace fabriclab::runner::host
