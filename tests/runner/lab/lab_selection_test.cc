// Which labs `run` takes from its word: one, all, or a range of numbers.
#include "runner/lab/lab_selection.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "common/input_error.h"
#include "tests/runner/test_support.h"

namespace fabriclab::runner {
namespace {

namespace fs = std::filesystem;

class LabSelectionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* folder : {"01-one", "02-two", "03-three", "10-ten"}) {
      fs::create_directories(dir_.path() + "/" + folder);
      std::ofstream(dir_.path() + "/" + folder + "/lab.toml") << "# a lab\n";
    }
  }
  std::vector<std::string> folders(const std::string& which) {
    std::vector<std::string> out;
    for (const std::string& file : select_lab_files(dir_.path(), which))
      out.push_back(fs::path(file).parent_path().filename().string());
    return out;
  }
  std::string error(const std::string& which) {
    try {
      select_lab_files(dir_.path(), which);
    } catch (const InputError& e) {
      return e.what();
    }
    return "(no error)";
  }
  testing::TempDir dir_;
};

TEST_F(LabSelectionTest, OneLabByNumberOrFolder) {
  EXPECT_EQ(folders("2"), std::vector<std::string>{"02-two"});
  EXPECT_EQ(folders("02-two"), std::vector<std::string>{"02-two"});
  EXPECT_FALSE(selects_many_labs("02-two"));
  EXPECT_FALSE(selects_many_labs("02"));
}

TEST_F(LabSelectionTest, AllIsEveryLabByNumber) {
  EXPECT_EQ(folders("all"), (std::vector<std::string>{"01-one", "02-two", "03-three", "10-ten"}));
  EXPECT_TRUE(selects_many_labs("all"));
}

TEST_F(LabSelectionTest, ARangeIncludesBothEnds) {
  EXPECT_EQ(folders("02-03"), (std::vector<std::string>{"02-two", "03-three"}));
  EXPECT_EQ(folders("3-10"), (std::vector<std::string>{"03-three", "10-ten"}));
  EXPECT_EQ(folders("10-10"), std::vector<std::string>{"10-ten"});
  EXPECT_TRUE(selects_many_labs("02-05"));
}

TEST_F(LabSelectionTest, ABackwardsOrEmptyRangeIsRefusedWithWhatExists) {
  EXPECT_NE(error("03-01").find("runs backwards (expected FIRST-LAST with FIRST <= LAST"),
            std::string::npos)
      << error("03-01");
  const std::string empty = error("04-09");
  EXPECT_NE(empty.find("holds no lab"), std::string::npos) << empty;
  EXPECT_NE(empty.find("01-one, 02-two, 03-three, 10-ten"), std::string::npos) << empty;
}

}  // namespace
}  // namespace fabriclab::runner
