// The `counters` event's arithmetic and shape without a lab network: a
// sample since the scenario's baseline, link_bytes as the sum over links of
// the end read, and the fields as recordings/FORMAT.md names them.
#include "runner/scenario/counter_sample.h"

#include <gtest/gtest.h>

#include "runner/topology/lab_network.h"

namespace fabriclab::runner {
namespace {

CounterSample sample(uint64_t retransmits, uint64_t drops,
                     std::map<std::string, LinkCounters> links) {
  CounterSample s;
  s.retransmits = retransmits;
  s.drops = drops;
  s.links = std::move(links);
  return s;
}

TEST(CounterSample, SinceBaselineSubtractsPerLinkAndDirection) {
  const CounterSample baseline = sample(10, 0,
                                        {{"r0-sw", {"fl-x-r0/eth0", {1000, 10, 2000, 20}}},
                                         {"r1-sw", {"fl-x-r1/eth0", {500, 5, 500, 5}}}});
  const CounterSample now = sample(13, 7,
                                   {{"r0-sw", {"fl-x-r0/eth0", {1600, 16, 5000, 40}}},
                                    {"r1-sw", {"fl-x-r1/eth0", {3500, 25, 1100, 11}}},
                                    {"r2-sw", {"fl-x-r2/eth0", {9, 9, 9, 9}}}});
  const CounterSample since = sample_since(now, baseline);
  EXPECT_EQ(since.retransmits, 3u);
  EXPECT_EQ(since.drops, 7u) << "the impairment counts from the scenario's start itself";
  ASSERT_EQ(since.links.size(), 2u) << "r2-sw has no baseline: left out, not counted from 0";
  const LinkCounters& r0 = since.links.at("r0-sw");
  EXPECT_EQ(r0.end, "fl-x-r0/eth0");
  EXPECT_EQ(r0.counters.rx_bytes, 600u);
  EXPECT_EQ(r0.counters.rx_packets, 6u);
  EXPECT_EQ(r0.counters.tx_bytes, 3000u);
  EXPECT_EQ(r0.counters.tx_packets, 20u);
  // Each link once, both directions: (600 + 3000) + (3000 + 600).
  EXPECT_EQ(since.link_bytes(), 7200u);
}

TEST(CounterSample, EventFieldsNameEachLinkAndTheEndRead) {
  const CounterSample s = sample(2, 1, {{"r0-r1", {"fl-x-r0/eth0", {40, 4, 60, 6}}}});
  const nlohmann::json fields = counters_event_fields(s);
  EXPECT_EQ(fields["retransmits"], 2);
  EXPECT_EQ(fields["drops"], 1);
  EXPECT_EQ(fields["link_bytes"], 100);
  const nlohmann::json& link = fields["links"]["r0-r1"];
  EXPECT_EQ(link["end"], "fl-x-r0/eth0");
  EXPECT_EQ(link["tx_bytes"], 60);
  EXPECT_EQ(link["rx_bytes"], 40);
  EXPECT_EQ(link["tx_packets"], 6);
  EXPECT_EQ(link["rx_packets"], 4);
  // A lab without links (one rank) still says so: an empty object, 0 bytes.
  const nlohmann::json none = counters_event_fields(sample(0, 0, {}));
  EXPECT_TRUE(none["links"].is_object());
  EXPECT_TRUE(none["links"].empty());
  EXPECT_EQ(none["link_bytes"], 0);
}

// Reads the runner's own namespace's lo: every namespace has one.
class LoopbackNetwork : public LabNetwork {
 public:
  int world_size() const override { return 2; }
  std::string master_addr() const override { return "127.0.0.1"; }
  std::vector<LocalRank> local_ranks() const override { return {}; }
  std::vector<netem::Target> impairment_targets(const std::vector<int>&,
                                                netem::Direction) const override {
    return {};
  }
  std::vector<CounterSource> counter_sources() const override {
    return {{-1, "lo", "lo-lo", "self/lo"}, {-1, "", "", ""}, {-1, "no-such-dev", "gone", "x"}};
  }
};

TEST(CounterSample, ReadsTheSourcesOfALabNetwork) {
  const CounterSample s = read_counter_sample(LoopbackNetwork(), 5);
  EXPECT_EQ(s.drops, 5u);
  ASSERT_EQ(s.links.size(), 1u) << "a source without a device, or whose device is gone, has none";
  EXPECT_EQ(s.links.at("lo-lo").end, "self/lo");
}

}  // namespace
}  // namespace fabriclab::runner
