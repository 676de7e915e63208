// The lab model: lab.toml -> LabDefinition, with every plug-in name checked
// against its registry and errors naming file, line and key.
#include "runner/lab/lab_definition.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "common/input_error.h"
#include "runner/link/link_setting.h"
#include "tests/runner/lab/lab_file_test.h"
#include "tests/runner/test_support.h"

namespace fabriclab::runner {
namespace {

const char* kHead = "[lab]\nid = \"93\"\ntitle = \"t\"\n";
const char* kScenario = "[[scenario]]\nname = \"clean\"\n";

class LabDefinitionTest : public LabFileTest {
 protected:
  LabDefinitionTest() : LabFileTest("93-plugins", kHead) {}
};

TEST_F(LabDefinitionTest, DefaultsAreTrainOnAutoFabricWithTheDefaultCharts) {
  const LabDefinition lab = load_lab(write(kScenario));
  EXPECT_EQ(lab.workload.kind, "train");
  EXPECT_TRUE(lab.workload.params.empty());
  EXPECT_EQ(lab.fabric.kind, "auto");
  EXPECT_EQ(lab.ranks, 2);
  EXPECT_EQ(lab.charts, (std::vector<std::string>{"loss_vs_time", "step_times"}));
  EXPECT_TRUE(lab.exercises.empty());
}

// Lab 01's climb from chance: extra evaluation steps, as --eval-at takes
// them; a list that is not steps >= 0 is refused at its line.
TEST_F(LabDefinitionTest, EvalAtIsAListOfSteps) {
  const LabDefinition lab =
      load_lab(write(std::string("[workload]\neval_at = \"0,5,10\"\n") + kScenario));
  EXPECT_EQ(lab.workload.param("eval_at"), "0,5,10");
  for (const char* bad : {"0,,5", "-1", "5,x", ","}) {
    const std::string message =
        error(std::string("[workload]\neval_at = \"") + bad + "\"\n" + kScenario);
    EXPECT_NE(message.find("lab.toml:"), std::string::npos) << bad << ": " << message;
    EXPECT_NE(message.find("eval_at must be steps >= 0 separated by commas"), std::string::npos)
        << bad << ": " << message;
  }
}

TEST_F(LabDefinitionTest, WorkloadTableAndOlderTrainerTableMeanTheSame) {
  const LabDefinition a =
      load_lab(write(std::string("[workload]\nkind = \"train\"\nwidth = 64\nlr = 0.1\n") + kScenario));
  const LabDefinition b = load_lab(write(std::string("[trainer]\nwidth = 64\nlr = 0.1\n") + kScenario));
  EXPECT_EQ(a.workload.kind, b.workload.kind);
  EXPECT_EQ(a.workload.params, b.workload.params);
  EXPECT_EQ(a.workload.param("width"), "64");
}

TEST_F(LabDefinitionTest, QuickOverridesWorkloadParameters) {
  const std::string path =
      write(std::string("[workload]\nsteps = 40\n[quick]\nsteps = 5\n") + kScenario);
  EXPECT_EQ(load_lab(path).workload.param("steps"), "40");
  EXPECT_EQ(load_lab(path, /*quick=*/true).workload.param("steps"), "5");
}

// A scenario's own size does not outgrow --quick: a number [quick] sets too
// takes the smaller value (lab 11's 16 MiB scenarios, lab 02's 4 steps);
// the full run keeps the scenario's.
TEST_F(LabDefinitionTest, QuickCapsAScenariosOwnNumbers) {
  const std::string path = write(std::string("[workload]\nsteps = 40\nbatch = 64\n") +
                                 "[quick]\nsteps = 5\n"
                                 "[[scenario]]\nname = \"big\"\nworkload = { steps = 20, batch = 9 }\n"
                                 "[[scenario]]\nname = \"small\"\nworkload = { steps = 3 }\n");
  const LabDefinition full = load_lab(path);
  EXPECT_EQ(full.scenarios[0].workload.param("steps"), "20");
  EXPECT_EQ(full.scenarios[1].workload.param("steps"), "3");
  const LabDefinition quick = load_lab(path, /*quick=*/true);
  EXPECT_EQ(quick.scenarios[0].workload.param("steps"), "5") << "[quick] caps the scenario's 20";
  EXPECT_EQ(quick.scenarios[0].workload.param("batch"), "9") << "[quick] does not set batch";
  EXPECT_EQ(quick.scenarios[1].workload.param("steps"), "3") << "the scenario's 3 is smaller";
}

TEST_F(LabDefinitionTest, PluginNamesAreCheckedAgainstTheirRegistries) {
  EXPECT_NE(error(std::string("[workload]\nkind = \"sweep\"\n") + kScenario)
                .find("lab.toml:5: key 'kind': unknown workload 'sweep' (known: train, allreduce, command)"),
            std::string::npos);
  EXPECT_NE(error(std::string("[workload]\nwidht = 3\n") + kScenario)
                .find("lab.toml:5: key 'widht': not a parameter of workload 'train'"),
            std::string::npos);
  EXPECT_NE(error(std::string("[workload]\nwidth = \"wide\"\n") + kScenario)
                .find("key 'width': expected a non-negative integer"),
            std::string::npos);
  EXPECT_NE(error(std::string("[topology]\nranks = 2\nkind = \"torus\"\n") + kScenario)
                .find("lab.toml:6: key 'kind': unknown fabric kind 'torus' (known: auto, single, "
                      "pair, switch, leaf_spine)"),
            std::string::npos);
  EXPECT_NE(error(std::string("[topology]\nranks = 3\nkind = \"pair\"\n") + kScenario)
                .find("fabric 'pair' holds 2 ranks, not 3"),
            std::string::npos);
  EXPECT_NE(error(std::string("[report]\ncharts = [\"step_times\", \"pie\"]\n") + kScenario)
                .find("lab.toml:5: key 'charts': expected chart names (loss_vs_time, step_times, timeline, busbw, link_bytes, sweep, queue_depth, alpha_beta_fit, slowest_of_n)"),
            std::string::npos);
  EXPECT_NE(error(std::string(kScenario) + "impair = \"delay soon\"\n")
                .find("lab.toml:6: key 'impair': not a valid netem spec"),
            std::string::npos);
  EXPECT_NE(error(std::string(kScenario) + "rate = \"1gbit\"\n").find("unknown key 'rate'"),
            std::string::npos);
  EXPECT_NE(error(std::string("[trainer]\nwidth = 8\n[workload]\nwidth = 8\n") + kScenario)
                .find("[trainer] is the older name of [workload]"),
            std::string::npos);
}

TEST_F(LabDefinitionTest, SegmentationOffloadIsAFabricSetting) {
  EXPECT_TRUE(load_lab(write(kScenario)).fabric.segmentation_offload);
  EXPECT_FALSE(load_lab(write(std::string("[topology]\nsegmentation_offload = false\n") + kScenario))
                   .fabric.segmentation_offload);
  EXPECT_NE(error(std::string("[topology]\nsegmentation_offload = \"no\"\n") + kScenario)
                .find("lab.toml:5: key 'segmentation_offload': expected true or false"),
            std::string::npos);
}

TEST_F(LabDefinitionTest, TopologySysctlIsTheLabNetworksOwnSetting) {
  EXPECT_EQ(load_lab(write(kScenario)).fabric.link_setting("sysctl"), "") << "the kernel's defaults";
  EXPECT_EQ(load_lab(write(std::string("[topology]\nsysctl = \"net.ipv4.tcp_ecn=1\"\n") + kScenario))
                .fabric.link_setting("sysctl"),
            "net.ipv4.tcp_ecn=1");
  // The scenario setting's own grammar: per-namespace keys only.
  EXPECT_NE(error(std::string("[topology]\nsysctl = \"kernel.panic=1\"\n") + kScenario)
                .find("lab.toml:5: key 'sysctl': 'kernel.panic=1': expected KEY=VALUE with a "
                      "per-namespace key"),
            std::string::npos)
      << error(std::string("[topology]\nsysctl = \"kernel.panic=1\"\n") + kScenario);
}

TEST_F(LabDefinitionTest, ScenarioWorkloadOverridesAndBaseline) {
  const std::string lab_text = std::string("[workload]\nwidth = 64\nsteps = 40\n") +
                               "[[scenario]]\nname = \"clean\"\n"
                               "[[scenario]]\nname = \"long\"\nworkload = { batch = 2048, steps = 8 }\n"
                               "[[scenario]]\nname = \"long-linux\"\n"
                               "workload = { batch = 2048, steps = 8 }\nbaseline = \"long\"\n"
                               "[[scenario]]\nname = \"latency\"\n";
  const LabDefinition lab = load_lab(write(lab_text));
  ASSERT_EQ(lab.scenarios.size(), 4u);
  EXPECT_EQ(lab.scenarios[0].workload.params, lab.workload.params);
  EXPECT_EQ(lab.scenarios[0].baseline, "clean");
  EXPECT_EQ(lab.scenarios[1].workload_overrides,
            (std::map<std::string, std::string>{{"batch", "2048"}, {"steps", "8"}}));
  EXPECT_EQ(lab.scenarios[1].workload.param("steps"), "8");
  EXPECT_EQ(lab.scenarios[1].workload.param("width"), "64") << "the rest is the lab's";
  EXPECT_EQ(lab.scenarios[1].baseline, "") << "another workload: no yardstick unless named";
  EXPECT_EQ(lab.scenarios[2].baseline, "long");
  EXPECT_EQ(lab.scenarios[3].baseline, "clean");

  EXPECT_NE(error(std::string(kScenario) + "workload = { widht = 3 }\n")
                .find("lab.toml:6: key 'widht': not a parameter of workload 'train'"),
            std::string::npos)
      << error(std::string(kScenario) + "workload = { widht = 3 }\n");
  EXPECT_NE(error(std::string(kScenario) + "baseline = \"nope\"\n")
                .find("lab.toml:6: key 'baseline': no scenario 'nope' in this lab (clean)"),
            std::string::npos)
      << error(std::string(kScenario) + "baseline = \"nope\"\n");
  EXPECT_NE(error(std::string(kScenario) + "[[scenario]]\nname = \"big\"\n"
                                           "workload = { batch = 9 }\nbaseline = \"clean\"\n")
                .find("key 'baseline': scenario 'clean' runs another workload"),
            std::string::npos);
}

// `deadline = "6x clean"`: a limit against an earlier scenario's measured
// time, checked at load; resolved per run by measured_limits.h.
TEST_F(LabDefinitionTest, RelativeLimitsNameAnEarlierScenario) {
  const LabDefinition lab = load_lab(write(std::string(kScenario) +
                                           "[[scenario]]\nname = \"loss\"\n"
                                           "deadline = \"6x clean\"\nstall = \"1.5x clean\"\n"));
  EXPECT_FALSE(lab.scenarios[0].deadline.set());
  EXPECT_EQ(lab.scenarios[1].deadline.factor, 6);
  EXPECT_EQ(lab.scenarios[1].deadline.scenario, "clean");
  EXPECT_EQ(lab.scenarios[1].stall.text(), "1.5x clean");

  const std::string later = std::string(kScenario) + "deadline = \"2x loss\"\n" +
                            "[[scenario]]\nname = \"loss\"\n";
  EXPECT_NE(error(later).find("lab.toml:6: key 'deadline': expected a scenario that runs before "
                              "this one (none does), got 'loss'"),
            std::string::npos)
      << error(later);
  const std::string bad = std::string(kScenario) + "[[scenario]]\nname = \"x\"\n" +
                          "deadline = \"six times clean\"\n";
  EXPECT_NE(error(bad).find("lab.toml:8: key 'deadline': expected FACTORx SCENARIO, e.g. \"6x "
                            "clean\", got \"six times clean\""),
            std::string::npos)
      << error(bad);
  EXPECT_NE(error(std::string(kScenario) + "stall = 3\n").find("key 'stall': expected a string"),
            std::string::npos);
}

TEST_F(LabDefinitionTest, AScenarioMayRunOnTheFirstRanksOnly) {
  const std::string topology = "[topology]\nranks = 4\n";
  const LabDefinition lab = load_lab(write(topology + kScenario +
                                           "[[scenario]]\nname = \"pair\"\nranks = 2\n"
                                           "impair = \"delay 1ms\"\nlinks = [\"all\"]\n"));
  EXPECT_EQ(lab.scenarios[0].ranks, 4) << "default: every rank of the lab";
  EXPECT_EQ(lab.scenarios[1].ranks, 2);
  EXPECT_EQ(lab.scenarios[1].link_ranks, (std::vector<int>{0, 1})) << "\"all\" of its own ranks";
  EXPECT_EQ(lab.scenarios[1].baseline, "") << "another job: no yardstick unless named";

  EXPECT_NE(error(topology + kScenario + "ranks = 5\n")
                .find("lab.toml:8: key 'ranks': expected an integer in [1, 4], got 5"),
            std::string::npos)
      << error(topology + kScenario + "ranks = 5\n");
  EXPECT_NE(error(topology + kScenario + "ranks = 2\nlinks = [\"r3\"]\n")
                .find("key 'links': 'r3' is not a link of this lab: expected \"all\", r0..r1"),
            std::string::npos);
  EXPECT_NE(error(topology + kScenario + "[[scenario]]\nname = \"pair\"\nranks = 2\n"
                                         "baseline = \"clean\"\n")
                .find("key 'baseline': scenario 'clean' runs on 4 ranks, this one on 2"),
            std::string::npos);
}

TEST_F(LabDefinitionTest, APlacementPutsRanksOnHostsByName) {
  const std::string topology = "[topology]\nranks = 4\nkind = \"leaf_spine\"\n";
  const LabDefinition lab = load_lab(write(topology + kScenario +
                                           "[[scenario]]\nname = \"apart\"\n"
                                           "placement = [\"r0\", \"r0\", \"r2\"]\n"));
  EXPECT_TRUE(lab.scenarios[0].placement.empty());
  EXPECT_EQ(lab.scenarios[1].placement, (std::vector<int>{0, 0, 2}));
  EXPECT_EQ(lab.scenarios[1].ranks, 3) << "a placement's length is the job's world";

  const auto fails_with = [&](const std::string& scenario, const std::string& expected) {
    const std::string message = error(topology + kScenario + scenario);
    EXPECT_NE(message.find(expected), std::string::npos) << message;
  };
  fails_with("placement = [\"r0\", \"r4\"]\n",
             "lab.toml:9: key 'placement': the lab network has hosts r0 to r3");
  fails_with("placement = [\"r0\", 1]\n", "key 'placement': expected an array of host names");
  fails_with("placement = []\n", "key 'placement': expected an array of host names");
  fails_with("placement = [\"host0\"]\n", "key 'placement': expected an array of host names");
  fails_with("placement = [\"r0\"]\nranks = 2\n", "key 'ranks': give either ranks or placement");
}

TEST_F(LabDefinitionTest, TheFabricsOwnLinksAreCheckedWhereTheyAreWritten) {
  const std::string leaf_spine = "[topology]\nranks = 4\nkind = \"leaf_spine\"\n";
  const LabDefinition lab = load_lab(write(leaf_spine + "host_links = \"rate 250mbit\"\n"
                                           "uplinks = \"delay 500us rate 100mbit\"\n" + kScenario));
  EXPECT_EQ(lab.fabric.link_setting("host_links"), "rate 250mbit");
  EXPECT_EQ(lab.fabric.link_setting("uplinks"), "delay 500us rate 100mbit");

  const auto fails_with = [&](const std::string& body, const std::string& expected) {
    const std::string message = error(body);
    EXPECT_NE(message.find(expected), std::string::npos) << message;
  };
  fails_with("[topology]\nranks = 3\nkind = \"switch\"\nuplinks = \"delay 1ms\"\n" +
                 std::string(kScenario),
             "lab.toml:7: key 'uplinks': kind \"switch\" has no links between routers");
  fails_with(leaf_spine + "uplinks = \"delay 1 ms\"\n" + kScenario, "key 'uplinks':");
  fails_with(leaf_spine + "host_links = \"delay 1ms rate 1gbit\"\n" + kScenario,
             "key 'host_links': expected a rate alone");
  fails_with(leaf_spine + "host_links = \"rate 1gbit\"\n" + kScenario + "impair = \"delay 1ms\"\n",
             "key 'impair': [topology] host_links already shapes every host's link");
}

TEST_F(LabDefinitionTest, ARankParameterIsANumberOrASeedWord) {
  const LabDefinition lab = load_lab(write(
      std::string("[topology]\nranks = 4\n") + kScenario +
      "workload = { compute_slowdown = 3.0, slow_rank = \"seed:slow_rank\" }\n"
      "[[scenario]]\nname = \"fixed\"\nworkload = { slow_rank = 2 }\n"));
  EXPECT_EQ(lab.scenarios[0].workload.param("slow_rank"), "seed:slow_rank");
  EXPECT_EQ(lab.scenarios[1].workload.param("slow_rank"), "2");
  EXPECT_EQ(lab.scenarios[1].baseline, "clean") << "a slow worker is the same job on a worse machine";
  EXPECT_NE(error(std::string(kScenario) + "workload = { slow_rank = \"slowest\" }\n")
                .find("key 'slow_rank': expected a rank number or \"seed:LABEL\""),
            std::string::npos)
      << error(std::string(kScenario) + "workload = { slow_rank = \"slowest\" }\n");
  EXPECT_NE(error(std::string("[topology]\nranks = 4\n") + kScenario +
                  "ranks = 2\nimpair = \"delay 1ms\"\nlinks = [\"seed:slow_rank\"]\n")
                .find("key 'ranks': a scenario with a seed: link runs on every rank of the lab"),
            std::string::npos);
}

TEST_F(LabDefinitionTest, WithoutACleanScenarioThereIsNoDefaultBaseline) {
  const LabDefinition lab = load_lab(write("[[scenario]]\nname = \"small\"\n"
                                           "[[scenario]]\nname = \"large\"\nbaseline = \"small\"\n"));
  EXPECT_EQ(lab.scenarios[0].baseline, "") << "not its own yardstick";
  EXPECT_EQ(lab.scenarios[1].baseline, "small") << "named, it counts";
}

TEST_F(LabDefinitionTest, TablesAreCheckedAgainstTheirRegistry) {
  const LabDefinition lab = load_lab(
      write(std::string("[report]\ntables = [\"wire_bytes\", \"scale_up\"]\n") + kScenario));
  EXPECT_EQ(lab.tables, (std::vector<std::string>{"wire_bytes", "scale_up"}));
  EXPECT_TRUE(load_lab(write(kScenario)).tables.empty());
  EXPECT_NE(error(std::string("[report]\ntables = [\"bytes\"]\n") + kScenario)
                .find("lab.toml:5: key 'tables': expected table names (wire_bytes, scale_up, per_rank, cost, sweep, queue, uplinks, alpha_beta, ports, slowest_of_n)"),
            std::string::npos)
      << error(std::string("[report]\ntables = [\"bytes\"]\n") + kScenario);
}

TEST_F(LabDefinitionTest, ChartsAndFabricKindAreKept) {
  const LabDefinition lab = load_lab(write(
      std::string("[topology]\nranks = 2\nkind = \"switch\"\n[report]\ncharts = [\"step_times\"]\n") +
      kScenario));
  EXPECT_EQ(lab.fabric.kind, "switch");
  EXPECT_EQ(lab.charts, (std::vector<std::string>{"step_times"}));
}

TEST_F(LabDefinitionTest, ScenarioLinkSettingsAreKeptByKey) {
  const LabDefinition lab =
      load_lab(write(std::string(kScenario) + "impair = \"delay 5ms\"\nlinks = [\"r1\"]\n"));
  const ScenarioDefinition& s = lab.scenarios.front();
  ASSERT_EQ(s.link_settings.size(), 1u);
  EXPECT_EQ(s.link_settings.at("impair").text(), "delay 5ms");
  EXPECT_EQ(s.impair(), "delay 5ms");
  EXPECT_EQ(s.link_ranks, (std::vector<int>{1}));
}

TEST_F(LabDefinitionTest, ExercisesArePartOfTheLabAndNameItsScenarios) {
  const std::string exercise =
      "[[exercise]]\nid = \"x\"\nprompt = \"p\"\nhints = [\"h\"]\nkind = \"number\"\n"
      "from = \"recording\"\nvalue = \"scenario.nope.result.wall_s\"\n";
  EXPECT_NE(error(std::string(kScenario) + exercise).find("exercise 'x': the lab has no scenario 'nope'"),
            std::string::npos);
  const LabDefinition lab = load_lab(write(
      std::string(kScenario) + "[[exercise]]\nid = \"p\"\nprompt = \"p\"\nhints = [\"h\"]\n"
                               "kind = \"number\"\nfrom = \"lab\"\nvalue = \"params\"\n"));
  ASSERT_EQ(lab.exercises.size(), 1u);
  EXPECT_EQ(lab.exercises.front().id, "p");
  // mlp at the trainer's default width 128: 118,282 parameters (trainer/models.h).
  EXPECT_EQ(lab_model_params(lab), 118282);
}

// depends_on_run: true unless the lab declares otherwise, and only where the
// answer comes from the run; 'and' joins checks in exercises, not lessons.
TEST_F(LabDefinitionTest, DependsOnRunAndConjunctionsAreCheckedWhereWritten) {
  const std::string head =
      std::string(kScenario) + "[[exercise]]\nid = \"x\"\nprompt = \"p\"\nhints = [\"h\"]\n"
                               "kind = \"number\"\n";
  const std::string from_run = "from = \"recording\"\nvalue = \"scenario.clean.result.wall_s\"\n";
  EXPECT_TRUE(load_lab(write(head + from_run)).exercises.front().depends_on_run);
  EXPECT_FALSE(
      load_lab(write(head + from_run + "depends_on_run = false\n")).exercises.front().depends_on_run);
  EXPECT_NE(error(head + from_run + "depends_on_run = \"no\"\n")
                .find("lab.toml:13: exercise 'x': depends_on_run: expected true or false"),
            std::string::npos);
  EXPECT_NE(error(head + "from = \"lab\"\nvalue = \"params\"\ndepends_on_run = false\n")
                .find("exercise 'x': depends_on_run: from = \"lab\" never depends on the run"),
            std::string::npos);

  const std::string choice =
      std::string(kScenario) + "[[exercise]]\nid = \"c\"\nprompt = \"p\"\nhints = [\"h\"]\n"
                               "kind = \"choice\"\nfrom = \"recording\"\noptions = [\n";
  const auto option = [&](const std::string& when) {
    return choice + "  { key = \"a\", text = \"t\", when = \"" + when + "\" },\n]\n";
  };
  const LabDefinition lab =
      load_lab(write(option("scenario clean completed and scenario.clean.result.wall_s >= 1")));
  EXPECT_EQ(lab.exercises.front().options.front().when,
            "scenario clean completed and scenario.clean.result.wall_s >= 1");
  // Each part is checked as a check of its own.
  EXPECT_NE(error(option("scenario clean completed and scenario nope completed"))
                .find("the lab has no scenario 'nope'"),
            std::string::npos);
  EXPECT_NE(error(option("scenario clean completed and otherwise"))
                .find("'otherwise' stands alone, not in 'and'"),
            std::string::npos);
  EXPECT_NE(error(std::string(kScenario) +
                  "[[lesson]]\ncheck = \"scenario clean completed and scenario clean completed\"\n"
                  "claim = \"c\"\n")
                .find("'and' joins checks in exercises only"),
            std::string::npos);
}

TEST_F(LabDefinitionTest, NeighbourFlowsAreReadAndChecked) {
  const std::string topology = "[topology]\nranks = 4\nkind = \"switch\"\n";
  const LabDefinition lab = load_lab(write(
      topology + kScenario + "neighbours = [\"noisy r3->r0\", \"victim r3->r1 rate 20mbit\"]\n"));
  ASSERT_EQ(lab.scenarios[0].neighbours.size(), 2u);
  EXPECT_EQ(lab.scenarios[0].neighbours[0], (NeighbourFlowSpec{"noisy", 3, 0, 0}));
  EXPECT_EQ(lab.scenarios[0].neighbours[1], (NeighbourFlowSpec{"victim", 3, 1, 20'000'000 / 8}));
  EXPECT_EQ(print_neighbour_flow(lab.scenarios[0].neighbours[1]), "victim r3->r1 rate 20mbit");

  EXPECT_NE(error(topology + kScenario + "neighbours = [\"noisy r4->r0\"]\n")
                .find("lab.toml:9: key 'neighbours': the lab network has ranks r0 to r3"),
            std::string::npos);
  EXPECT_NE(error(topology + kScenario + "neighbours = [\"noisy r3-r0\"]\n")
                .find("expected the sender and receiver ranks, rA->rB"),
            std::string::npos);
  EXPECT_NE(error(topology + kScenario + "neighbours = [\"a r1->r0\", \"a r2->r0\"]\n")
                .find("a second flow named a"),
            std::string::npos);
  EXPECT_NE(error(topology + kScenario + "neighbours = [\"a r1->r0 rate fast\"]\n")
                .find("lab.toml:9: key 'neighbours'"),
            std::string::npos);
}

TEST_F(LabDefinitionTest, BadQueueWordsNameTheLineAndTheWord) {
  const std::string topology = "[topology]\nranks = 3\nkind = \"switch\"\n";
  const std::string message =
      error(topology + kScenario + "queue = \"rate 100mbit limit 64kb ecn kmin 40kb kmax 10kb\"\n");
  EXPECT_NE(message.find("lab.toml:9: key 'queue': not a valid queue"), std::string::npos) << message;
  EXPECT_NE(message.find("kmax"), std::string::npos) << message;
  EXPECT_NE(error(topology + kScenario + "queue = \"rate 100mbit lossless\"\n").find("lab.toml:9"),
            std::string::npos);
}

// Found by tests/fuzz/fuzz_lab_toml: an integer with no exact double made
// toml++'s value<double>() empty (std::bad_optional_access); nan passed
// every range check.
TEST_F(LabDefinitionTest, EveryNumberIsCheckedIncludingHugeIntegersAndNan) {
  EXPECT_NE(error(std::string(kScenario) + "deadline_s = 901111111111111111\n")
                .find("lab.toml:6: key 'deadline_s': expected a number in [1, 86400]"),
            std::string::npos);
  EXPECT_NE(error(std::string(kScenario) + "stall_s = nan\n").find("key 'stall_s': expected a number in"),
            std::string::npos);
  EXPECT_EQ(load_lab(write(std::string(kScenario) + "deadline_s = 600\n")).scenarios[0].deadline_s, 600);
}

TEST(LabCatalog, EveryShippedLabLoads) {
  for (const std::string& file : list_lab_files(default_labs_dir())) {
    SCOPED_TRACE(file);
    const LabDefinition lab = load_lab(file);
    EXPECT_FALSE(lab.scenarios.empty());
    load_lab(file, /*quick=*/true);
  }
}

TEST_F(LabDefinitionTest, OverridesAndSeedLinksAreReadAndChecked) {
  const std::string lab_text = std::string("[topology]\nranks = 4\n") +
                               "[[scenario]]\nname = \"slow\"\nimpair = \"rate 400mbit\"\n"
                               "links = [\"all\"]\n"
                               "[[scenario.override]]\nlinks = [\"seed:slow_rank\"]\n"
                               "impair = \"rate 100mbit\"\n"
                               "[[scenario.override]]\nlinks = [\"r0\"]\n"
                               "sysctl = \"net.ipv4.tcp_ecn=1\"\n";
  const LabDefinition lab = load_lab(write(lab_text));
  const ScenarioDefinition& s = lab.scenarios.at(0);
  ASSERT_EQ(s.overrides.size(), 2u);
  EXPECT_EQ(s.overrides[0].links, (std::vector<std::string>{"seed:slow_rank"}));
  EXPECT_EQ(s.overrides[0].link_settings.at("impair").text(), "rate 100mbit");
  EXPECT_EQ(s.overrides[1].link_settings.at("sysctl").text(), "net.ipv4.tcp_ecn=1");
  EXPECT_EQ(s.every_link_setting().size(), 3u);

  const std::string head = "[topology]\nranks = 4\n[[scenario]]\nname = \"s\"\n";
  // lines: 1-3 [lab], 4-5 [topology], 6-7 the scenario, 8 the override
  EXPECT_NE(error(head + "[[scenario.override]]\nlinks = [\"r7\"]\nimpair = \"rate 1mbit\"\n")
                .find("lab.toml:9: key 'links': 'r7' is not a link of this lab"),
            std::string::npos)
      << error(head + "[[scenario.override]]\nlinks = [\"r7\"]\nimpair = \"rate 1mbit\"\n");
  EXPECT_NE(error(head + "links = [\"seed:Slow\"]\nimpair = \"rate 1mbit\"\n")
                .find("'seed:Slow' is not a link of this lab"),
            std::string::npos);
  EXPECT_NE(error(head + "[[scenario.override]]\nimpair = \"rate 1mbit\"\n")
                .find("key 'links': missing: an override names the links it sets"),
            std::string::npos);
  EXPECT_NE(error(head + "[[scenario.override]]\nlinks = [\"r1\"]\n")
                .find("key 'override': sets nothing"),
            std::string::npos);
  EXPECT_NE(error(head + "[[scenario.override]]\nlinks = [\"r1\"]\nimpair = \"rate fast\"\n")
                .find("lab.toml:10: key 'impair': not a valid netem spec"),
            std::string::npos);
  EXPECT_NE(error(head + "[[scenario.override]]\nlinks = [\"r1\"]\nname = \"x\"\n")
                .find("unknown key 'name' in [[scenario.override]]"),
            std::string::npos);
}

TEST_F(LabDefinitionTest, AllreduceWorkloadParametersAreCheckedTogether) {
  const std::string lab_text = std::string("[workload]\nkind = \"allreduce\"\n") +
                               "minbytes = 4096\nmaxbytes = 1024\n" + kScenario;
  // Pointed at the parameter's own line.
  EXPECT_NE(error(lab_text).find("lab.toml:7: key 'maxbytes': maxbytes must be in minbytes"),
            std::string::npos)
      << error(lab_text);
}

}  // namespace
}  // namespace fabriclab::runner
