// The result parts against recordings/FORMAT.md (every declared field
// documented, no documented field undeclared) and the row's one JSON
// conversion (what each part writes, when, and how it reads back).
#include "runner/report/result/result_parts.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>

#include "common/build_paths.h"
#include "common/input_error.h"

namespace fabriclab::runner::report {
namespace {

// The fields FORMAT.md's `result` section documents: the `backticked`
// names in the first cell of its tables' rows.
std::set<std::string> documented_result_fields() {
  const std::filesystem::path format =
      std::filesystem::path(build_paths::source_dir()) / "recordings" / "FORMAT.md";
  std::ifstream in(format);
  EXPECT_TRUE(in) << "cannot read " << format;
  static const std::regex kName("`([A-Za-z0-9_]+)`");
  std::set<std::string> out;
  bool in_section = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("`result` (computed by", 0) == 0) in_section = true;
    if (line.rfind("## metrics.jsonl", 0) == 0) break;
    if (!in_section || line.rfind("| `", 0) != 0) continue;
    const std::string first_cell = line.substr(1, line.find('|', 1) - 1);
    for (std::sregex_iterator m(first_cell.begin(), first_cell.end(), kName), end; m != end; ++m)
      out.insert((*m)[1]);
  }
  return out;
}

std::set<std::string> declared_result_fields() {
  std::set<std::string> out;
  for (const ResultPart& part : result_parts())
    for (const PartField& f : part.fields)
      EXPECT_TRUE(out.insert(f.field.name).second) << f.field.name;
  return out;
}

TEST(ResultParts, EveryDeclaredFieldIsDocumentedInFormatMd) {
  const std::set<std::string> documented = documented_result_fields();
  ASSERT_FALSE(documented.empty()) << "recordings/FORMAT.md: no `result` tables found";
  for (const std::string& name : declared_result_fields())
    EXPECT_TRUE(documented.count(name))
        << "result field '" << name << "' has no line in recordings/FORMAT.md";
}

TEST(ResultParts, EveryDocumentedFieldIsDeclaredByAPart) {
  const std::set<std::string> declared = declared_result_fields();
  for (const std::string& name : documented_result_fields())
    EXPECT_TRUE(declared.count(name)) << "recordings/FORMAT.md documents result field '" << name
                                      << "', which no part in runner/report/result/ declares";
}

TEST(ResultParts, EveryFieldSaysWhatItMeans) {
  for (const ResultPart& part : result_parts()) {
    EXPECT_FALSE(part.name.empty());
    if (!part.present_when.empty()) {
      EXPECT_NE(find_result_field(part.present_when), nullptr) << part.name;
    }
    for (const PartField& f : part.fields) EXPECT_FALSE(f.field.meaning.empty()) << f.field.name;
  }
}

TEST(ResultParts, AFlowsFiguresAreFoundByTheirFamily) {
  ASSERT_NE(find_result_field("victim_mbps"), nullptr);
  EXPECT_EQ(find_result_field("victim_mbps")->name, "NAME_mbps");
  EXPECT_EQ(find_result_field("victim_rtt_ms")->name, "NAME_rtt_ms");
  EXPECT_EQ(find_result_field("median_network_ms")->name, "median_network_ms");
  EXPECT_EQ(find_result_field("no_such_field"), nullptr);
}

TEST(ResultRow, APartWithoutItsLeadingFieldIsLeftOut) {
  const nlohmann::json row = result_row_json(ScenarioResult{});
  EXPECT_TRUE(row.contains("wall_s"));
  EXPECT_TRUE(row["slowdown"].is_null());
  EXPECT_FALSE(row.contains("ce_packets"));
  EXPECT_FALSE(row.contains("busbw_gb_per_s"));
  EXPECT_FALSE(row.contains("flow_gbps"));
  EXPECT_FALSE(row.contains("marks"));
  EXPECT_FALSE(row.contains("uplinks"));
  EXPECT_EQ(row.size(), 24u);  // timing, training, counters (spurious and loss retransmits too), wire bytes, ranks (longest_rtt: lab 12)
}

TEST(ResultRow, ReadsBackWhatItWrote) {
  ScenarioResult result;
  result.wall_s = 2.5;
  result.steps_completed = 7;
  result.retransmits = 12;
  result.straggler = 3;
  result.uplink_bytes = 300;
  result.hot_uplink = "tor0-spine1";
  result.bytes_by_uplink = {{"tor0-spine0", 100}, {"tor0-spine1", 200}};
  result.neighbour_mbps["victim"] = 19.5;
  result.neighbour_rtt_ms["victim"] = std::nullopt;
  const nlohmann::json row = result_row_json(result);
  EXPECT_TRUE(row["retransmits"].is_number_integer());
  EXPECT_EQ(row["uplinks"]["tor0-spine1"], 200);
  EXPECT_EQ(row["victim_mbps"], 19.5);
  EXPECT_TRUE(row["victim_rtt_ms"].is_null());
  const ScenarioResult back = result_from_row_json(row);
  EXPECT_EQ(result_row_json(back), row);
  EXPECT_EQ(back.hot_uplink, "tor0-spine1");
  EXPECT_EQ(back.steps_completed, 7);
}

TEST(ResultRow, AFieldIsReadByNameAsRunJsonHoldsIt) {
  ScenarioResult result;
  result.retransmits = 12;
  result.neighbour_mbps["victim"] = 19.5;
  EXPECT_TRUE(result_value(result, "retransmits").is_number_integer());
  EXPECT_EQ(result_value(result, "retransmits"), 12);
  EXPECT_EQ(result_value(result, "victim_mbps"), 19.5);
  EXPECT_TRUE(result_value(result, "other_mbps").is_null());  // no such flow
  EXPECT_TRUE(result_value(result, "paused_ms").is_null());   // no queue part in this row
  EXPECT_TRUE(result_value(result, "no_such_field").is_null());
  result.marks = 3;
  result.paused_ms = 2.0;
  EXPECT_TRUE(result_value(result, "paused_ms").is_number_float());
}

TEST(ResultRow, TypedReadsByNameAreWhatTheRowHolds) {
  ScenarioResult result;
  result.wall_s = 8;
  result.retransmits = 12;
  result.hot_uplink = "tor0-spine1";
  result.neighbour_mbps = {{"victim", 19.5}, {"noisy", std::nullopt}};
  EXPECT_EQ(result_number(result, "wall_s"), 8.0);
  EXPECT_EQ(result_number(result, "retransmits"), 12.0);  // a count is a figure too
  EXPECT_EQ(result_count(result, "retransmits"), 12);
  EXPECT_EQ(result_count(result, "steps_completed"), 0);  // an int is always held
  EXPECT_EQ(result_count(result, "wall_s"), std::nullopt);  // not a count
  EXPECT_EQ(result_number(result, "final_loss"), std::nullopt);
  EXPECT_EQ(result_number(result, "no_such_field"), std::nullopt);
  EXPECT_EQ(result_word(result, "hot_uplink"), "tor0-spine1");
  EXPECT_EQ(result_number(result, "victim_mbps"), 19.5);
  EXPECT_EQ(result_number(result, "noisy_mbps"), std::nullopt);
  EXPECT_EQ(result_flows(result, "NAME_mbps"), (std::vector<std::string>{"noisy", "victim"}));
  EXPECT_TRUE(result_flows(result, "wall_s").empty());
  // A field of a part run.json leaves out is still what the row holds.
  result.step_slowdown = 1.5;
  EXPECT_TRUE(result_value(result, "step_slowdown").is_null());  // no flow probe
  EXPECT_EQ(result_number(result, "step_slowdown"), 1.5);
}

TEST(ResultRow, AValueOfTheWrongKindNamesItsField) {
  nlohmann::json row = result_row_json(ScenarioResult{});
  row["median_network_ms"] = "fast";
  try {
    result_from_row_json(row);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "result: field 'median_network_ms': expected a number or null");
  }
  row.erase("median_network_ms");
  row.erase("wall_s");
  EXPECT_THROW(result_from_row_json(row), InputError);  // wall_s is required
}

}  // namespace
}  // namespace fabriclab::runner::report
