// runner/README.md, the map, held to the tree: every folder has a row in
// "Which way the arrows point", every plug-in registry's entries are the ones
// "Plug-ins" lists, and every file the map names exists.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "runner/link/link_setting.h"
#include "runner/report/chart_kind.h"
#include "runner/report/result/result_parts.h"
#include "runner/report/table_kind.h"
#include "runner/topology/fabric.h"
#include "runner/workload/workload.h"
#include "tests/runner/runner_map.h"

namespace fabriclab::runner {
namespace {

using testing::code_spans;
using testing::readme_table;
using testing::runner_dir;

std::set<std::string> as_set(const std::vector<std::string>& names) {
  return {names.begin(), names.end()};
}

TEST(RunnerMap, EveryFolderHasOneArrowsRowAndNoRowNamesAMissingFolder) {
  const auto rules = testing::dependency_rules();
  std::set<std::string> named;
  for (const auto& [folder, deps] : rules) named.insert(folder);
  EXPECT_EQ(named, testing::runner_folders());
}

// The parser is not trivially permissive: the rows it reads still forbid.
TEST(RunnerMap, TheArrowsRowsReadAsTheyAreWritten) {
  const auto rules = testing::dependency_rules();
  ASSERT_TRUE(rules.count("cli") && rules.count("report") && rules.count("rundir"));
  std::set<std::string> others = testing::runner_folders();
  others.erase("cli");
  EXPECT_EQ(rules.at("cli"), others) << "cli/ may use everything below it";
  EXPECT_EQ(rules.at("report"), (std::set<std::string>{"process", "rundir"}));
  EXPECT_TRUE(rules.at("rundir").empty());
}

// Plug-ins: the registry each row names, its table file, and its entries.
TEST(RunnerMap, ThePlugInTableListsEveryRegistrysEntries) {
  const auto rows = readme_table("Plug-ins: where the labs differ");
  ASSERT_GE(rows.size(), 5u);
  int checked = 0;
  for (const auto& row : rows) {
    ASSERT_GE(row.size(), 4u);
    const auto key = code_spans(row[0]);
    ASSERT_FALSE(key.empty());
    for (const std::string& cell : {row[1], row[2]})
      for (const std::string& file : code_spans(cell))
        EXPECT_TRUE(std::filesystem::exists(runner_dir() / file)) << file << " (" << key[0] << ")";
    // The entries are the cell's code spans that are names, not a `[[...]]`,
    // a path or a `word:`.
    std::set<std::string> listed;
    for (const std::string& span : code_spans(row[3]))
      if (span.find_first_of("[/.:") == std::string::npos) listed.insert(span);
    if (key[0] == "[workload] kind") {
      EXPECT_EQ(listed, as_set(workload_kinds()));
    } else if (key[0] == "[topology] kind") {
      EXPECT_EQ(listed, as_set(fabric_kinds()));
    } else if (key[0] == "[report] charts") {
      EXPECT_EQ(listed, as_set(report::chart_names()));
    } else if (key[0] == "[report] tables") {
      EXPECT_EQ(listed, as_set(report::table_names()));
    } else if (key[0] == "[[scenario]]") {
      std::set<std::string> keys = as_set(link_setting_keys(SettingScope::kScenario));
      for (const std::string& k : link_setting_keys(SettingScope::kFabric)) keys.insert(k);
      EXPECT_EQ(listed, keys);
    } else if (key[0] == "result") {
      std::set<std::string> parts;
      for (const auto& part : report::result_parts()) parts.insert(part.name);
      EXPECT_EQ(listed, parts);
    } else {
      continue;
    }
    ++checked;
  }
  EXPECT_EQ(checked, 6) << "a registry row was renamed: follow it here";
}

}  // namespace
}  // namespace fabriclab::runner
