// run.json's result rows against the parts' declarations: figures are
// numbers or null, names and bytes by name are not figures, and a wrong
// value is refused at its line by every reader of recordings.
#include "runner/report/result/recorded_results.h"

#include <gtest/gtest.h>

#include "common/input_error.h"
#include "runner/report/run_directory.h"
#include "tests/runner/report/report_fixture.h"
#include "tests/runner/test_support.h"

namespace fabriclab::runner::report {
namespace {

using nlohmann::json;
using runner::testing::error_of;

TEST(RecordedResults, FiguresAreNumbersOrNullAndNamesAreTheirPartsToRead) {
  EXPECT_EQ(misfit_result_key(json::parse(R"({"wall_s": 8, "slowdown": null, "victim_mbps": 19.5,
      "hot_uplink": "tor0-spine1", "hot_spine": null, "uplinks": {"tor0-spine0": 1},
      "a_newer_figure": 3})")),
            std::nullopt);
  EXPECT_EQ(misfit_result_key(json::parse(R"({"wall_s": 8, "retransmits": "12"})")), "retransmits");
  EXPECT_EQ(misfit_result_key(json::parse(R"({"victim_rtt_ms": [1]})")), "victim_rtt_ms");
  EXPECT_EQ(misfit_result_key(json::parse(R"({"a_newer_figure": "x"})")), "a_newer_figure");
  EXPECT_EQ(misfit_result_key(json()), std::nullopt);  // no row
}

TEST(RecordedResults, TheReportRefusesAWrongValueAtItsLine) {
  testing::TempDir dir("result-kind");
  testing::write_text(dir.path() / "run.json",
                      "{\"format\":\"fabriclab-run\",\"version\":1,\"scenarios\":[\n"
                      "{\"name\":\"clean\",\"result\":{\n"
                      "\"wall_s\":\"fast\"}}]}\n");
  testing::write_text(dir.path() / "metrics.jsonl", "");
  EXPECT_EQ(error_of([&] { read_run_directory(dir.path()); }),
            (dir.path() / "run.json").string() +
                ":3: scenario 'clean': field 'result.wall_s': expected a number or null, got "
                "\"fast\"");
}

}  // namespace
}  // namespace fabriclab::runner::report
