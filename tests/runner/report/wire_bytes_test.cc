// Lab 03's arithmetic: bytes each rank sent per step against the ring's
// 2(N-1)/N x S, and the scale-up table built on the measured bytes per
// parameter. Events are hand-made with round numbers.
#include "runner/report/wire_bytes.h"

#include <gtest/gtest.h>

#include <cmath>

#include "common/sync_time.h"
#include "runner/report/scale_up_table.h"
#include "runner/report/table_kind.h"
#include "runner/report/wire_bytes_table.h"
#include "tests/runner/report/report_fixture.h"

namespace fabriclab::runner::report {
namespace {

using nlohmann::json;
using testing::start_event;
using testing::step_event;

// `ranks` ranks of a model with `params` parameters, each sending
// `tx_per_step` in every step but the first (which carries rendezvous
// leftovers: 10x as much).
std::vector<json> wire_scenario(int ranks, double params, double tx_per_step, int steps = 4) {
  std::vector<json> events;
  for (int r = 0; r < ranks; ++r) {
    json start = start_event("s", r, ranks, steps);
    start["params"] = params;
    start["grad_bytes"] = params * 4;
    events.push_back(start);
    for (int step = 1; step <= steps; ++step) {
      json e = step_event("s", r, step, 1000.0 + step, 100, 20, 1.0);
      e["tx_bytes"] = step == 1 ? tx_per_step * 10 : tx_per_step;
      e["tx_packets"] = std::floor(tx_per_step / 1600);  // ~1514-byte frames and a few ACKs
      events.push_back(e);
    }
  }
  return events;
}

TEST(WireBytes, SentPerStepAgainstTheRingsPayload) {
  // 4 ranks, S = 4,000,000 bytes: the ring sends 1.5 x S = 6,000,000.
  const WireBytes w = summarize_wire_bytes(wire_scenario(4, 1e6, 6.42e6));
  ASSERT_TRUE(w.tx_bytes_per_step && w.ring_bytes && w.wire_overhead && w.wire_bytes_per_param);
  EXPECT_DOUBLE_EQ(*w.tx_bytes_per_step, 6.42e6) << "the first step is left out";
  EXPECT_DOUBLE_EQ(*w.ring_bytes, 6e6);
  EXPECT_NEAR(*w.wire_overhead, 0.07, 1e-12);
  EXPECT_DOUBLE_EQ(*w.wire_bytes_per_param, 6.42);
  EXPECT_EQ(*w.world_size, 4);

  const WireBytes pair = summarize_wire_bytes(wire_scenario(2, 1e6, 4.2e6));
  EXPECT_DOUBLE_EQ(*pair.ring_bytes, 4e6) << "N = 2: the ring sends S once";
}

TEST(WireBytes, OneStepCountsAndNothingMeasuredIsNull) {
  EXPECT_DOUBLE_EQ(*summarize_wire_bytes(wire_scenario(2, 1e6, 4e6, 1)).tx_bytes_per_step, 4e7);

  std::vector<json> unmeasured = wire_scenario(2, 1e6, 4e6);
  for (json& e : unmeasured) e.erase("tx_bytes");
  const WireBytes w = summarize_wire_bytes(unmeasured);
  EXPECT_FALSE(w.tx_bytes_per_step);
  EXPECT_FALSE(w.wire_overhead);
  EXPECT_TRUE(w.ring_bytes) << "the payload is known from the start event";

  EXPECT_FALSE(summarize_wire_bytes(wire_scenario(1, 1e6, 0)).ring_bytes) << "one rank: no ring";
}

TEST(WireBytes, AreResultFieldsOfTheScenario) {
  const ScenarioResult result = summarize_scenario(wire_scenario(4, 1e6, 6.42e6));
  ASSERT_TRUE(result.wire_overhead);
  EXPECT_NEAR(*result.wire_overhead, 0.07, 1e-12);
  const json row = result;
  EXPECT_DOUBLE_EQ(row["tx_bytes_per_step"].get<double>(), 6.42e6);
  ScenarioResult back;
  from_json(row, back);
  EXPECT_DOUBLE_EQ(*back.wire_bytes_per_param, 6.42);
}

ScenarioSummary summary_of(const std::string& name, const std::vector<json>& events) {
  ScenarioSummary s;
  s.name = name;
  s.result = summarize_scenario(events);
  s.wire = summarize_wire_bytes(events);
  return s;
}

TEST(WireBytesTable, OneRowPerMeasuredScenario) {
  std::vector<json> unmeasured = wire_scenario(2, 1e6, 4e6);
  for (json& e : unmeasured) e.erase("tx_bytes");
  const std::string table = format_wire_bytes_table(
      {summary_of("large-4", wire_scenario(4, 4035910, 25.9e6)), summary_of("off", unmeasured)});
  EXPECT_NE(table.find("large-4"), std::string::npos) << table;
  EXPECT_NE(table.find("4,035,910"), std::string::npos) << table;
  EXPECT_NE(table.find("16.1 MB"), std::string::npos) << "S = 4 x params\n" << table;
  EXPECT_NE(table.find("24.2 MB"), std::string::npos) << "1.5 x S\n" << table;
  EXPECT_NE(table.find("+4.4%"), std::string::npos) << "headers: 16,187 frames x 66 B\n" << table;
  EXPECT_NE(table.find("+2.5%"), std::string::npos) << "the rest: 6.96 - 4.41\n" << table;
  EXPECT_NE(table.find("25.9 MB"), std::string::npos) << table;
  EXPECT_NE(table.find("+7.0%"), std::string::npos) << table;
  EXPECT_EQ(table.find("off "), std::string::npos) << "nothing measured, no row\n" << table;
  EXPECT_EQ(format_wire_bytes_table({summary_of("off", unmeasured)}), "");
}

TEST(ScaleUp, TheCurriculumsInversionAtFourBytesPerParameter) {
  // 700 GB over one 400 Gb/s NIC: 14 s.
  EXPECT_DOUBLE_EQ(sync_seconds(175e9, 4, "fp32", 400, 1), 14);
  EXPECT_DOUBLE_EQ(sync_seconds(175e9, 4, "bf16", 400, 1), 7);
  EXPECT_DOUBLE_EQ(sync_seconds(175e9, 4, "fp32", 400, 8), 1.75);
}

TEST(ScaleUp, ScalesTheBasisWithTheMostRanksThenTheLargestModel) {
  const std::vector<ScenarioSummary> summaries = {
      summary_of("large-2", wire_scenario(2, 4e6, 17e6)),
      summary_of("small-4", wire_scenario(4, 1e6, 6.4e6)),
      summary_of("large-4", wire_scenario(4, 4e6, 25.6e6)),  // 6.4 B/param
  };
  ASSERT_NE(scale_up_basis(summaries), nullptr);
  EXPECT_EQ(scale_up_basis(summaries)->name, "large-4");
  const std::string table = format_scale_up_table(summaries);
  EXPECT_NE(table.find("scenario large-4 sent 6.40 bytes per fp32 parameter"), std::string::npos)
      << table;
  // 175B x 6.4 B = 1.12 TB per rank; over one 400G NIC 22.4 s, over 8: 2.80 s.
  const size_t row = table.find("175B   fp32");
  ASSERT_NE(row, std::string::npos) << table;
  const std::string line = table.substr(row, table.find('\n', row) - row);
  EXPECT_NE(line.find("1.12 TB"), std::string::npos) << line;
  EXPECT_NE(line.find("22.4**"), std::string::npos) << line;
  EXPECT_NE(line.find("2.80*"), std::string::npos) << line;
  EXPECT_EQ(format_scale_up_table({}), "");
}

TEST(TableKinds, AreFoundByName) {
  EXPECT_NE(find_table("wire_bytes"), nullptr);
  EXPECT_NE(find_table("scale_up"), nullptr);
  EXPECT_EQ(find_table("bytes"), nullptr);
  EXPECT_EQ(table_names(),
            (std::vector<std::string>{"wire_bytes", "scale_up", "per_rank", "cost", "sweep", "queue", "uplinks",
                                      "alpha_beta"}));
}

}  // namespace
}  // namespace fabriclab::runner::report
