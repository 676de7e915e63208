// Host mode without a network: who is which host, where each host impairs a
// lab's links (only towards/from the other lab hosts), and how the lead
// merges the hosts' outcomes into one recording-shaped outcome.
#include "runner/host/host_network.h"

#include <gtest/gtest.h>

#include "common/input_error.h"
#include "runner/host/host_outcomes.h"
#include "runner/host/host_roster.h"

namespace fabriclab::runner::host {
namespace {

HostRoster three_hosts(int index, int ranks_per_host = 1) {
  return {{"10.0.0.1", "10.0.0.2", "10.0.0.3"}, index, ranks_per_host};
}

TEST(HostRoster, ParsesAndFindsItself) {
  const auto hosts = parse_host_list("10.0.0.1,10.0.0.2");
  ASSERT_EQ(hosts.size(), 2u);
  EXPECT_EQ(find_own_host_index(hosts, {"127.0.0.1", "10.0.0.2"}), 1);
  EXPECT_THROW(find_own_host_index(hosts, {"127.0.0.1"}), InputError);
  EXPECT_THROW(parse_host_list("10.0.0.1"), InputError);
  EXPECT_THROW(parse_host_list("10.0.0.1,,10.0.0.2"), InputError);
  EXPECT_THROW(parse_host_list("10.0.0.1,10.0.0.1"), InputError);
}

// Without --iface, the lab interface is the one holding this host's own
// address in the list: here loopback's 127.0.0.1, which every machine has.
TEST(HostRoster, TheDefaultLabInterfaceHoldsThisHostsAddress) {
  const std::vector<std::string> hosts = {"127.0.0.1", "192.0.2.7"};  // 192.0.2/24: TEST-NET-1
  EXPECT_EQ(interface_with_address("127.0.0.1"), "lo");
  EXPECT_EQ(default_lab_interface(hosts, 0), "lo");
  EXPECT_EQ(default_lab_interface(hosts, -1), "lo");  // found by address
  EXPECT_EQ(interface_with_address("192.0.2.7"), "");
  try {
    default_lab_interface(hosts, 1);
    ADD_FAILURE() << "no interface holds 192.0.2.7";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no interface of this machine holds 192.0.2.7"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(default_lab_interface(hosts, 2), InputError);
}

TEST(HostNetwork, LocalRanksAreThisHostsSlice) {
  HostNetwork net(three_hosts(1, 2), "eth1");
  EXPECT_EQ(net.world_size(), 6);
  EXPECT_EQ(net.master_addr(), "10.0.0.1");
  const auto ranks = net.local_ranks();
  ASSERT_EQ(ranks.size(), 2u);
  EXPECT_EQ(ranks[0].rank, 2);
  EXPECT_EQ(ranks[1].rank, 3);
  EXPECT_EQ(ranks[1].local_rank, 1);
  EXPECT_EQ(ranks[1].bind_addr, "10.0.0.2");
  EXPECT_EQ(ranks[1].netns_fd, -1);
}

TEST(HostNetwork, CountsItsOwnInterfaceAsOneLinkNamedAfterTheHost) {
  const auto sources = HostNetwork(three_hosts(1), "eth1").counter_sources();
  ASSERT_EQ(sources.size(), 1u);
  EXPECT_EQ(sources[0].netns_fd, -1);
  EXPECT_EQ(sources[0].device, "eth1");
  EXPECT_EQ(sources[0].link, "10.0.0.2-lab");
  EXPECT_EQ(sources[0].end, "10.0.0.2/eth1");
}

TEST(HostNetwork, EgressImpairsOnlyTheSendingHostTowardsTheOthers) {
  // Link r1 (host 1's traffic): host 1 impairs towards hosts 0 and 2; the others nothing.
  const auto on_1 =
      HostNetwork(three_hosts(1), "eth1").impairment_targets({1}, netem::Direction::kEgress);
  ASSERT_EQ(on_1.size(), 1u);
  EXPECT_EQ(on_1[0].device, "eth1");
  EXPECT_EQ(on_1[0].peers, (std::vector<std::string>{"10.0.0.1", "10.0.0.3"}));
  EXPECT_TRUE(HostNetwork(three_hosts(0), "eth1")
                  .impairment_targets({1}, netem::Direction::kEgress)
                  .empty());
}

TEST(HostNetwork, IngressImpairsArrivalsFromTheSendingHosts) {
  const auto on_0 =
      HostNetwork(three_hosts(0), "eth1").impairment_targets({1, 2}, netem::Direction::kIngress);
  ASSERT_EQ(on_0.size(), 1u);
  EXPECT_EQ(on_0[0].direction, netem::Direction::kIngress);
  EXPECT_EQ(on_0[0].peers, (std::vector<std::string>{"10.0.0.2", "10.0.0.3"}));
  // Its own traffic never arrives at itself over the wire.
  EXPECT_TRUE(HostNetwork(three_hosts(1), "eth1")
                  .impairment_targets({1}, netem::Direction::kIngress)
                  .empty());
}

nlohmann::json event(const std::string& kind, double ts,
                     nlohmann::json fields = nlohmann::json::object()) {
  fields["event"] = kind;
  fields["ts"] = ts;
  fields["scenario"] = "latency";
  return fields;
}

ScenarioOutcome outcome_of(const std::string& status, int rank, double t0) {
  ScenarioOutcome o;
  o.status = *rundir::scenario_status_from_string(status);
  o.started_unix_s = t0;
  o.ended_unix_s = t0 + 10;
  o.steps_planned = 5;
  o.steps_completed = status == "completed" ? 5 : 3;
  o.ranks_here = 1;
  o.applied = {"userspace on eth1"};
  o.events = {event("scenario_start", t0), event("step", t0 + 1, {{"rank", rank}}),
              event("counters", t0 + 9,
                    {{"retransmits", 2},
                     {"drops", 1},
                     {"link_bytes", 100},
                     {"links",
                      {{"10.0.0." + std::to_string(rank + 1) + "-lab",
                        {{"tx_bytes", 60}, {"rx_bytes", 40}}}}},
                     {"ranks", {{"r" + std::to_string(rank), {{"retransmits", 2}, {"rtt_ms", nullptr}}}}}}),
              event("scenario_end", t0 + 10, {{"status", status}})};
  return o;
}

// --capture in host mode: the merged outcome -- what run.json's scenario
// `capture` is written from -- is the lead's own capture (its pcap is in the
// recording); before, the merge dropped it and run.json had no `capture`.
TEST(HostOutcomes, MergeKeepsTheLeadsCapture) {
  const HostRoster p{{"10.0.0.1", "10.0.0.2"}, 0, 1};
  ScenarioOutcome lead = outcome_of("completed", 0, 100);
  lead.capture = {{"file", "captures/latency.pcap"}, {"device", "eth1"}, {"packets", 42}};
  ScenarioOutcome follower = outcome_of("completed", 1, 100);
  follower.capture = {{"file", "captures/latency.pcap"}, {"device", "eth1"}, {"packets", 7}};
  const ScenarioOutcome merged = merge_outcomes({lead, follower}, p);
  EXPECT_EQ(merged.capture, lead.capture) << merged.capture.dump();
  // Without --capture there is none, as in namespace mode.
  EXPECT_TRUE(merge_outcomes({outcome_of("completed", 0, 100), outcome_of("completed", 1, 100)}, p)
                  .capture.is_null());
}

TEST(HostOutcomes, MergeKeepsEveryRanksEventsAndOneRunnerRecord) {
  const HostRoster p{{"10.0.0.1", "10.0.0.2"}, 0, 1};
  ScenarioOutcome follower = outcome_from_json(outcome_to_json(outcome_of("stalled", 1, 100.5)));
  const ScenarioOutcome merged = merge_outcomes({outcome_of("completed", 0, 100), follower}, p);
  EXPECT_EQ(merged.status, rundir::ScenarioStatus::kStalled);
  EXPECT_EQ(merged.message.rfind("host 1 (10.0.0.2): ", 0), 0u) << merged.message;
  EXPECT_EQ(merged.steps_completed, 3);
  EXPECT_EQ(merged.started_unix_s, 100);
  EXPECT_EQ(merged.ended_unix_s, 110.5);
  EXPECT_EQ(merged.applied.size(), 2u);
  int starts = 0, ends = 0, steps = 0;
  for (const auto& e : merged.events) {
    const std::string kind = e["event"];
    starts += kind == "scenario_start";
    ends += kind == "scenario_end";
    steps += kind == "step";
    if (kind == "counters") {
      EXPECT_EQ(e["retransmits"], 4);
      EXPECT_EQ(e["link_bytes"], 200);
      // Each host's own link, side by side.
      EXPECT_EQ(e["links"].size(), 2u) << e.dump();
      EXPECT_EQ(e["links"]["10.0.0.2-lab"]["tx_bytes"], 60) << e.dump();
    }
    if (kind == "scenario_end") {
      EXPECT_EQ(e["status"], "stalled");
    }
  }
  EXPECT_EQ(starts, 1);
  EXPECT_EQ(ends, 1);
  EXPECT_EQ(steps, 2);
  EXPECT_EQ(merged.events.back()["event"], "scenario_end");
}

// A scenario on fewer ranks than the lab leaves some hosts idle: their zero
// steps do not count; each host's ranks and their last round trip do.
TEST(HostOutcomes, IdleHostsDoNotCountAndEachHostsRanksAreKept) {
  const HostRoster p{{"10.0.0.1", "10.0.0.2", "10.0.0.3"}, 0, 1};
  ScenarioOutcome with_rtt = outcome_of("completed", 1, 100);
  with_rtt.events.insert(with_rtt.events.begin() + 2,
                         event("counters", 105, {{"ranks", {{"r1", {{"rtt_ms", 50.5}}}}}}));
  ScenarioOutcome idle;
  idle.status = rundir::ScenarioStatus::kCompleted;
  idle.started_unix_s = 100;
  idle.ended_unix_s = 101;
  idle.steps_planned = 5;
  ScenarioOutcome lead = outcome_of("completed", 0, 100);
  lead.link_picks = {{"slow_rank", "r1"}};
  lead.impairments = nlohmann::json::array(
      {{{"links", {"r1"}}, {"spec", "delay 50ms"}, {"applied", {"on lab0"}}}});
  with_rtt.impairments = nlohmann::json::array(
      {{{"links", {"r1"}}, {"spec", "delay 50ms"}, {"applied", {"on lab1"}}}});
  const ScenarioOutcome merged =
      merge_outcomes({lead, outcome_from_json(outcome_to_json(with_rtt)), idle}, p);
  EXPECT_EQ(merged.link_picks.at("slow_rank"), "r1") << "the lead's plan is the run's";
  ASSERT_EQ(merged.impairments.size(), 1u);
  EXPECT_EQ(merged.impairments[0]["applied"],
            nlohmann::json({"host 0 (10.0.0.1): on lab0", "host 1 (10.0.0.2): on lab1"}))
      << "every host's lines, in the one entry";
  EXPECT_EQ(merged.status, rundir::ScenarioStatus::kCompleted);
  EXPECT_EQ(merged.steps_completed, 5) << "host 2 ran none of this scenario's ranks";
  for (const auto& e : merged.events) {
    if (e["event"] != "counters") continue;
    EXPECT_EQ(e["ranks"].size(), 2u) << e.dump();
    EXPECT_EQ(e["ranks"]["r1"]["rtt_ms"], 50.5) << "the last round trip read while it ran";
    EXPECT_TRUE(e["ranks"]["r0"]["rtt_ms"].is_null());
  }
}

}  // namespace
}  // namespace fabriclab::runner::host
