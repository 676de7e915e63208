// The terminal table: the right figures in the right rows, within 100 columns.
#include "runner/report/summary_table.h"

#include <gtest/gtest.h>

#include <sstream>

#include "report_fixture.h"
#include "runner/report/run_directory.h"

namespace fabriclab::runner::report {
namespace {

std::string row_of(const std::string& table, const std::string& scenario) {
  std::istringstream lines(table);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind(scenario + " ", 0) == 0) return line;
  }
  return "";
}

class SummaryTable : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::write_lab02_run(dir_.path());
    summaries_ = summarize_run(read_run_directory(dir_.path()));
    table_ = format_summary_table(summaries_);
  }
  testing::TempDir dir_{"table"};
  std::vector<ScenarioSummary> summaries_;
  std::string table_;
};

TEST_F(SummaryTable, RowsCarryTheFigures) {
  // Columns: scenario condition status wall x-clean median p99 net comm retx drops loss.
  EXPECT_EQ(row_of(table_, "clean"),
            "clean     no impairment     COMPLETED       8.0   1.00  100  100  25.0    25     0      0"
            "  0.263")
      << table_;
  const std::string latency = row_of(table_, "latency");
  EXPECT_NE(latency.find(" 20.0   2.50  250  250  62.5    25     4      2 "), std::string::npos)
      << table_;
  const std::string loss = row_of(table_, "loss");
  EXPECT_NE(loss.find(" 48.0   6.00  600  600   150    25  1234    617 "), std::string::npos) << table_;
}

TEST_F(SummaryTable, StalledRowShowsStepsDoneOfPlannedAndWhy) {
  const std::string both = row_of(table_, "both");
  EXPECT_NE(both.find("STALLED 41/80  16.4     --  400  400   100    25    57     28"), std::string::npos)
      << table_;
  EXPECT_NE(table_.find("both: STALLED 41/80 -- no rank completed a step for 20 s"),
            std::string::npos)
      << table_;
}

TEST_F(SummaryTable, LabTwoFitsInOneHundredColumnsUncut) {
  std::istringstream lines(table_);
  std::string line;
  while (std::getline(lines, line)) EXPECT_LE(line.size(), 100u) << line;
  EXPECT_NE(row_of(table_, "both").find("+50 ms, +1% loss"), std::string::npos) << table_;
  // Right-aligned numbers: every row's loss ends in the same column.
  EXPECT_EQ(row_of(table_, "clean").size(), row_of(table_, "both").size()) << table_;
}

TEST_F(SummaryTable, LongConditionIsShortenedToFit) {
  summaries_[0].condition = std::string(150, 'c');
  const std::string table = format_summary_table(summaries_);
  std::istringstream lines(table);
  std::string line;
  while (std::getline(lines, line)) EXPECT_LE(line.size(), 100u) << line;
  EXPECT_NE(table.find("c~"), std::string::npos) << table;
}

TEST(SummaryTableAbsent, MissingValuesPrintDashes) {
  ScenarioSummary skipped;
  skipped.name = "later";
  skipped.status = rundir::ScenarioStatus::kSkipped;
  skipped.message = "the lab was interrupted";
  const std::string table = format_summary_table({skipped});
  const std::string row = row_of(table, "later");
  EXPECT_NE(row.find("SKIPPED"), std::string::npos) << table;
  EXPECT_NE(row.find("--"), std::string::npos) << table;
}

}  // namespace
}  // namespace fabriclab::runner::report
