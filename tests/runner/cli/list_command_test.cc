// `fabriclab list` through the real binary: a labs folder holding one good
// lab and one whose lab.toml does not load lists the good one, then names
// the broken one with its file:line and message, and exits 2; without the
// broken one it exits 0.
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <fstream>

#include "common/build_paths.h"
#include "tests/runner/test_support.h"
#include "tests/support/child_process.h"

namespace fabriclab {
namespace {

namespace fs = std::filesystem;
using fabriclab::testing::run_command;

class ListCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(labs());
    fs::copy(fs::path(fabriclab::build_paths::source_dir()) / "labs" / "02-dropped-packet",
             labs() / "02-dropped-packet", fs::copy_options::recursive);
  }

  fabriclab::testing::RunResult list() {
    return run_command({fabriclab::build_paths::fabriclab_binary(), "list", "--labs",
                        labs().string()});
  }

  fs::path labs() const { return fs::path(dir_.path()) / "labs"; }

  runner::testing::TempDir dir_;
};

TEST_F(ListCommand, AllGoodExitsZero) {
  const auto r = list();
  EXPECT_EQ(r.status.code, 0) << r.output;
  EXPECT_NE(r.output.find("02  What one dropped packet costs"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("did not load"), std::string::npos) << r.output;
}

TEST_F(ListCommand, ABrokenLabIsReportedAfterTheListingWithItsPlaceAndExitsTwo) {
  // 01 sorts first: its error must still come after 02's entry.
  fs::create_directories(labs() / "01-broken");
  std::ofstream(labs() / "01-broken" / "lab.toml")
      << "[lab]\ntitle = \"Broken\"\n\n[topology]\nranks = \"two\"\n";
  const auto r = list();
  EXPECT_EQ(r.status.code, 2) << r.output;
  const size_t good = r.output.find("02  What one dropped packet costs");
  const size_t heading = r.output.find("1 lab did not load:");
  const size_t error = r.output.find((labs() / "01-broken" / "lab.toml").string() + ":");
  ASSERT_NE(good, std::string::npos) << r.output;
  ASSERT_NE(heading, std::string::npos) << r.output;
  ASSERT_NE(error, std::string::npos) << r.output;
  EXPECT_LT(good, heading) << r.output;
  EXPECT_LT(heading, error) << r.output;
  const std::string place = (labs() / "01-broken" / "lab.toml").string() + ":";
  EXPECT_TRUE(std::isdigit(static_cast<unsigned char>(r.output[error + place.size()])))
      << "file:line, as load_lab says\n" << r.output;
  EXPECT_EQ(r.output.find("Broken"), std::string::npos) << "a broken lab is not listed as a lab\n"
                                                          << r.output;
}

}  // namespace
}  // namespace fabriclab
