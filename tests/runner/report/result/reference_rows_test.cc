// The parts against the reference recordings: re-summarizing each one's
// events gives every figure its run.json's result rows hold (what the
// runner wrote when it recorded them), so moving a computation into a part
// cannot change a recorded figure unnoticed. Fields added after a
// recording was made (mean_step_ms in the older ones) are not in its rows.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "common/build_paths.h"
#include "runner/report/result/result_parts.h"
#include "runner/report/run_directory.h"
#include "runner/report/scenario_summary.h"

namespace fabriclab::runner::report {
namespace {

namespace fs = std::filesystem;

bool same(const nlohmann::json& recorded, const nlohmann::json& now) {
  if (recorded.is_number() && now.is_number())
    return std::abs(recorded.get<double>() - now.get<double>()) <=
           1e-9 * std::max(1.0, std::abs(recorded.get<double>()));
  return recorded == now;
}

TEST(ResultParts, ReSummarizingEveryReferenceRecordingGivesItsRecordedRows) {
  const fs::path recordings = fs::path(build_paths::source_dir()) / "recordings";
  int compared = 0;
  for (const auto& entry : fs::directory_iterator(recordings)) {
    if (!fs::exists(entry.path() / "run.json")) continue;
    const RunDirectory run = read_run_directory(entry.path());
    const std::vector<ScenarioSummary> summaries = summarize_run(run);
    for (const nlohmann::json& scenario :
         run.manifest.value("scenarios", nlohmann::json::array())) {
      const nlohmann::json recorded = scenario.value("result", nlohmann::json());
      if (!recorded.is_object()) continue;
      const std::string name = scenario.value("name", std::string());
      for (const ScenarioSummary& s : summaries) {
        if (s.name != name) continue;
        const nlohmann::json now = result_row_json(s.result);
        for (const auto& [key, value] : recorded.items()) {
          ++compared;
          const auto it = now.find(key);
          EXPECT_TRUE(it != now.end() && same(value, *it))
              << entry.path().filename().string() << " " << name << " result." << key
              << ": recorded " << value.dump() << ", now "
              << (it == now.end() ? std::string("absent") : it->dump());
        }
      }
    }
  }
  if (compared == 0) GTEST_SKIP() << "no reference recordings with results";
}

}  // namespace
}  // namespace fabriclab::runner::report
