// The plug-in registries a lab.toml names: workloads, fabric kinds, charts
// and per-link settings, each looked up by name.
#include <gtest/gtest.h>

#include <algorithm>

#include "runner/link/link_setting.h"
#include "runner/report/chart_kind.h"
#include "runner/topology/fabric.h"
#include "runner/workload/train_workload.h"
#include "runner/workload/workload.h"

namespace fabriclab::runner {
namespace {

TEST(WorkloadRegistry, TrainRanksRunTheTrainerWithTheLabsFlags) {
  const Workload& train = find_workload("train");
  WorkloadDefinition w;
  w.params = {{"width", "512"}, {"timeout_s", "300.000000"}, {"bucket_cap_mb", "4"}};
  EXPECT_EQ(train.rank_command(w, "/tmp/m.jsonl"),
            (std::vector<std::string>{"train", "--metrics", "/tmp/m.jsonl", "--log-every", "0",
                                      "--bucket-cap-mb", "4", "--timeout", "300.000000",
                                      "--width", "512"}));
  EXPECT_EQ(train.planned_steps(w), 0);
  w.params["steps"] = "40";
  EXPECT_EQ(train.planned_steps(w), 40);
  // mlp 784 -> 512 -> 512 -> 10 with biases.
  EXPECT_EQ(train.model_params(w), 785 * 512 + 513 * 512 + 513 * 10);
  EXPECT_THROW(find_workload("allreduce_sweep"), std::invalid_argument);
  EXPECT_EQ(workload_kinds(), (std::vector<std::string>{"train", "allreduce", "command"}));
}

TEST(WorkloadRegistry, AllreduceRunsTheBenchRankWithItsSweepAsSteps) {
  const Workload& allreduce = find_workload("allreduce");
  WorkloadDefinition w;
  w.kind = "allreduce";
  w.params = {{"minbytes", "1048576"}, {"maxbytes", "4194304"}, {"iters", "3"}};
  EXPECT_EQ(allreduce.rank_command(w, "/tmp/m.jsonl"),
            (std::vector<std::string>{"bench", "allreduce-rank", "--sizes",
                                      "1048576,2097152,4194304", "--iters", "3", "--warmup", "1",
                                      "--check", "1", "--channels", "2", "--timeout", "120",
                                      "--metrics", "/tmp/m.jsonl", "--algorithm", "ring"}));
  EXPECT_EQ(allreduce.planned_steps(w), 3) << "one step per message size";
  // The lab's algorithm reaches the rank; an unknown one is refused.
  w.params["algorithm"] = "halving_doubling";
  EXPECT_EQ(allreduce.rank_command(w, "/tmp/m.jsonl").back(), "halving_doubling");
  EXPECT_NO_THROW(allreduce.check(w));
  w.params["algorithm"] = "tree";
  EXPECT_THROW(allreduce.check(w), std::invalid_argument) << "not one of Gloo's";
  w.params.erase("algorithm");
  EXPECT_NO_THROW(allreduce.check(w));
  EXPECT_THROW(allreduce.model_params(w), std::exception) << "it trains no model";
  w.params["stepfactor"] = "1";
  EXPECT_THROW(allreduce.check(w), std::invalid_argument) << "a factor of 1 never ends";
  w.params["stepfactor"] = "4";
  w.params["maxbytes"] = "1000";
  EXPECT_THROW(allreduce.check(w), std::invalid_argument) << "maxbytes below minbytes";
}

TEST(WorkloadRegistry, AllreduceOverRoceAsksTheRankForIbverbs) {
  const Workload& allreduce = find_workload("allreduce");
  WorkloadDefinition w;
  w.kind = "allreduce";
  w.params = {{"transport", "roce"}};
  EXPECT_NO_THROW(allreduce.check(w));
  const std::vector<std::string> argv = allreduce.rank_command(w, "/tmp/m.jsonl");
  ASSERT_GE(argv.size(), 2u);
  EXPECT_EQ(std::vector<std::string>(argv.end() - 2, argv.end()),
            (std::vector<std::string>{"--transport", "roce"}));
  w.params["transport"] = "tcp";
  const std::vector<std::string> tcp = allreduce.rank_command(w, "/tmp/m.jsonl");
  EXPECT_EQ(std::find(tcp.begin(), tcp.end(), "--transport"), tcp.end())
      << "tcp: the rank's default, the command as before";
  w.params["transport"] = "infiniband";
  EXPECT_THROW(allreduce.check(w), std::invalid_argument);
}

TEST(FabricRegistry, AutoPicksSinglePairOrSwitchByRanks) {
  EXPECT_EQ(draw_fabric("auto", 1).kind, "single");
  EXPECT_EQ(draw_fabric("auto", 2).kind, "pair");
  EXPECT_EQ(draw_fabric("auto", 3).kind, "switch");
}

TEST(FabricRegistry, GraphsNameHostsSwitchesAndLinks) {
  const FabricGraph pair = draw_fabric("pair", 2);
  ASSERT_EQ(pair.hosts.size(), 2u);
  EXPECT_TRUE(pair.switches.empty());
  ASSERT_EQ(pair.links.size(), 1u);
  EXPECT_EQ(pair.links[0].name, "r0-r1");

  const FabricGraph sw = draw_fabric("switch", 4);
  ASSERT_EQ(sw.switches.size(), 1u);
  EXPECT_EQ(sw.switches[0].name, "sw");
  ASSERT_EQ(sw.links.size(), 4u);
  EXPECT_EQ(sw.links[3].name, "r3-sw");
  EXPECT_EQ(sw.links[3].a, "r3");
  EXPECT_EQ(sw.hosts[3].rank, 3);

  EXPECT_TRUE(draw_fabric("single", 1).links.empty());
  EXPECT_THROW(draw_fabric("pair", 3), std::invalid_argument);
  EXPECT_THROW(draw_fabric("single", 2), std::invalid_argument);
  EXPECT_THROW(draw_fabric("clos", 4), std::invalid_argument);
}

TEST(ChartRegistry, DefaultsAreKnownCharts) {
  for (const std::string& name : report::default_charts()) {
    const report::ChartKind* chart = report::find_chart(name);
    ASSERT_NE(chart, nullptr) << name;
    EXPECT_EQ(name, chart->name);
    EXPECT_NE(std::string(chart->title).find("("), std::string::npos) << "units in the title";
  }
  EXPECT_EQ(report::find_chart("pie"), nullptr);
}

TEST(LinkSettingRegistry, ImpairValidatesNetemWords) {
  const LinkSettingKind* impair = find_link_setting("impair");
  ASSERT_NE(impair, nullptr);
  EXPECT_TRUE(impair->needs_backend());
  EXPECT_NO_THROW(impair->validate("delay 50ms loss 1%"));
  EXPECT_THROW(impair->validate("delay"), std::invalid_argument);
  EXPECT_EQ(find_link_setting("rate"), nullptr);
  EXPECT_FALSE(find_link_setting("sysctl")->needs_backend());
}

// What `fabriclab check` holds a round trip to: the least delay a frame
// gets. Jitter lowers it; a distribution table leaves nothing certain.
TEST(LinkSettingRegistry, ImpairsLeastDelayAllowsForJitter) {
  const LinkSettingKind* impair = find_link_setting("impair");
  ASSERT_NE(impair, nullptr);
  EXPECT_DOUBLE_EQ(impair->added_delay_ms(impair->parse("delay 10ms loss 1%")), 10.0);
  EXPECT_DOUBLE_EQ(impair->added_delay_ms(impair->parse("delay 10ms 3ms")), 7.0);
  EXPECT_DOUBLE_EQ(impair->added_delay_ms(impair->parse("delay 2ms 3ms")), 0.0);
  EXPECT_DOUBLE_EQ(impair->added_delay_ms(impair->parse("delay 2ms 3ms distribution pareto")), 0.0);
  EXPECT_DOUBLE_EQ(impair->added_delay_ms(impair->parse("delay 20ms 1ms distribution normal")), 0.0);
  EXPECT_DOUBLE_EQ(impair->added_delay_ms(impair->parse("loss 5%")), 0.0);
}

// Each kind says where a lab writes it: a [[scenario]] key, a [topology]
// key, or both (sysctl: a scenario's own, or the whole lab's).
TEST(LinkSettingRegistry, EachKindDeclaresItsScope) {
  EXPECT_EQ(link_setting_keys(SettingScope::kScenario),
            (std::vector<std::string>{"impair", "sysctl", "queue"}));
  EXPECT_EQ(link_setting_keys(SettingScope::kFabric),
            (std::vector<std::string>{"sysctl", "host_links", "uplinks"}));
  EXPECT_EQ(find_link_setting("uplinks", SettingScope::kScenario), nullptr);
  EXPECT_EQ(find_link_setting("queue", SettingScope::kFabric), nullptr);
  EXPECT_NE(find_link_setting("sysctl", SettingScope::kFabric), nullptr);
}

// One policy per kind for host mode: run, skip or refuse, saying why.
TEST(LinkSettingRegistry, EachKindSaysWhatHostModeDoesWithIt) {
  const auto policy = [](const char* key, SettingScope scope) {
    return find_link_setting(key)->in_host_mode(scope, SettingValue("V", nullptr));  // words alone
  };
  EXPECT_EQ(policy("impair", SettingScope::kScenario).action, HostModeAction::kRun);
  const HostModePolicy sysctl = policy("sysctl", SettingScope::kScenario);
  EXPECT_EQ(sysctl.action, HostModeAction::kSkip);
  EXPECT_NE(sysctl.reason.find("it sets sysctl V"), std::string::npos) << sysctl.reason;
  EXPECT_EQ(policy("sysctl", SettingScope::kFabric).action, HostModeAction::kSkip);
  const HostModePolicy queue = policy("queue", SettingScope::kScenario);
  EXPECT_EQ(queue.action, HostModeAction::kRefuse);
  EXPECT_NE(queue.reason.find("queue = \"V\""), std::string::npos) << queue.reason;
  for (const char* key : {"host_links", "uplinks"}) {
    const HostModePolicy fabric = policy(key, SettingScope::kFabric);
    EXPECT_EQ(fabric.action, HostModeAction::kRefuse) << key;
    EXPECT_NE(fabric.reason.find(std::string(key) + " = \"V\""), std::string::npos) << fabric.reason;
  }
}

}  // namespace
}  // namespace fabriclab::runner
