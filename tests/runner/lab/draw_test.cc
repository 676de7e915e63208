// `[[draw]]`: lab parameters the run's seed draws per student (draw.h). The
// same seed draws the same choice (the grader derives what the runner ran),
// seeds spread over the choices, the drawn text lands wherever the lab says
// {name}, and every choice is checked at load (file:line, exit 2).
#include "runner/lab/draw.h"

#include <gtest/gtest.h>

#include <set>

#include "runner/lab/lab_definition.h"
#include "runner/lab/seed_pick.h"
#include "tests/runner/lab/lab_file_test.h"

namespace fabriclab::runner {
namespace {

const char* kHead = "[lab]\nid = \"95\"\ntitle = \"t\"\n";
// Lines 4-6: the draw; 7-10: a scenario using it.
const char* kDraw =
    "[[draw]]\nname = \"added_latency\"\nchoices = [\"100ms\", \"75ms\", \"125ms\", \"150ms\"]\n"
    "[[scenario]]\nname = \"latency\"\ncondition = \"+{added_latency}\"\n"
    "impair = \"delay {added_latency}\"\n";

class DrawTest : public LabFileTest {
 protected:
  DrawTest() : LabFileTest("95-draw", kHead) {}
};

TEST_F(DrawTest, WithoutConditionsEveryDrawTakesItsFirstChoice) {
  const LabDefinition lab = load_lab(write(kDraw));
  ASSERT_EQ(lab.draws.size(), 1u);
  EXPECT_EQ(lab.conditions.at("added_latency"), "100ms");
  EXPECT_EQ(lab.scenarios[0].impair(), "delay 100ms");
  EXPECT_EQ(lab.scenarios[0].condition, "+100ms");
  EXPECT_EQ(lab.condition_number("added_latency"), 100);
}

TEST_F(DrawTest, TheSameSeedDrawsTheSameChoiceAndTheLabRunsIt) {
  const std::string path = write(kDraw);
  const LabDefinition plain = load_lab(path);
  for (uint64_t seed : {1ull, 42ull, 0xdeadbeefull}) {
    const Conditions a = draw_conditions(plain.draws, seed);
    EXPECT_EQ(a, draw_conditions(plain.draws, seed));
    // The grader's derivation: seed_pick with the draw's name.
    EXPECT_EQ(a.at("added_latency"),
              plain.draws[0].choices[seed_pick(seed, "added_latency", 4)].text);
    const LabDefinition drawn = load_lab(path, false, a);
    EXPECT_EQ(drawn.scenarios[0].impair(), "delay " + a.at("added_latency"));
  }
}

TEST_F(DrawTest, SeedsSpreadOverEveryChoice) {
  const LabDefinition lab = load_lab(write(kDraw));
  std::map<std::string, int> counts;
  for (uint64_t seed = 0; seed < 400; ++seed)
    ++counts[draw_conditions(lab.draws, seed).at("added_latency")];
  ASSERT_EQ(counts.size(), 4u);  // every choice drawn
  for (const auto& [choice, n] : counts) EXPECT_GT(n, 60) << choice;  // about 100 each
}

TEST_F(DrawTest, ConditionsTextAndJson) {
  const LabDefinition lab = load_lab(write(kDraw), false, {{"added_latency", "75ms"}});
  EXPECT_EQ(conditions_text(lab.draws, lab.conditions), "added latency 75 ms");
  EXPECT_EQ(conditions_json(lab.draws, lab.conditions), nlohmann::json({{"added_latency", "75ms"}}));
  EXPECT_EQ(conditions_from_json(nlohmann::json({{"added_latency", "75ms"}, {"low", 0.2}})),
            (Conditions{{"added_latency", "75ms"}, {"low", "0.2"}}));
  EXPECT_TRUE(conditions_from_json(nlohmann::json()).empty());
}

TEST_F(DrawTest, ARecordedValueTheLabDoesNotOfferIsRefused) {
  const std::string path = write(kDraw);
  EXPECT_THROW(load_lab(path, false, {{"added_latency", "60ms"}}), InputError);
  EXPECT_THROW(load_lab(path, false, {{"nope", "1"}}), InputError);
}

TEST_F(DrawTest, ANumberDrawFillsASweepValue) {
  const LabDefinition lab = load_lab(
      write("[topology]\nranks = 2\n[[draw]]\nname = \"low\"\nchoices = [0.1, 0.3]\n"
            "[[sweep]]\nname = \"loss\"\nvalues = [0, \"{low}\", 1]\nimpair = \"loss {}%\"\n"),
      false, {{"low", "0.3"}});
  EXPECT_EQ(lab.scenario_names(), (std::vector<std::string>{"loss-0", "loss-0p3", "loss-1"}));
  EXPECT_EQ(conditions_json(lab.draws, lab.conditions), nlohmann::json({{"low", 0.3}}));
}

TEST_F(DrawTest, BadDrawsAreRefusedAtTheirLine) {
  // {name} that nothing draws: the line using it.
  EXPECT_NE(error("[[scenario]]\nname = \"a\"\nimpair = \"delay {latency}\"\n")
                .find("lab.toml:6: {latency} is not a drawn parameter"),
            std::string::npos);
  // An empty list: the choices' line.
  EXPECT_NE(error("[[draw]]\nname = \"x\"\nchoices = []\n[[scenario]]\nname = \"a\"\n")
                .find("lab.toml:6: key 'choices'"),
            std::string::npos);
  // Numbers and strings mixed; units mixed; a choice twice.
  EXPECT_NE(error("[[draw]]\nname = \"x\"\nchoices = [1, \"2ms\"]\n[[scenario]]\nname = \"a\"\n")
                .find("all numbers or all strings"),
            std::string::npos);
  EXPECT_NE(error("[[draw]]\nname = \"x\"\nchoices = [\"75ms\", \"0.1s\"]\n[[scenario]]\nname = \"a\"\n")
                .find("one unit"),
            std::string::npos);
  EXPECT_NE(error("[[draw]]\nname = \"x\"\nchoices = [\"1ms\", \"1ms\"]\n[[scenario]]\nname = \"a\"\n")
                .find("twice"),
            std::string::npos);
}

TEST_F(DrawTest, AChoiceThatBreaksTheLabIsRefusedThoughNotDrawn) {
  // The first choice loads; "delay fast" is no tc-netem setting: the
  // impair line, and which choice it was.
  const std::string message =
      error("[[draw]]\nname = \"d\"\nchoices = [\"delay 10ms\", \"delay fast\"]\n"
            "[[scenario]]\nname = \"a\"\nimpair = \"{d}\"\n");
  EXPECT_NE(message.find("lab.toml:9:"), std::string::npos) << message;
  EXPECT_NE(message.find("when the seed draws d = \"delay fast\", the [[draw]] at line 4"),
            std::string::npos)
      << message;
}

TEST_F(DrawTest, ConditionPathsNeedANumberDraw) {
  const std::string exercise =
      "[[exercise]]\nid = \"rt\"\nprompt = \"p\"\nhints = [\"h\"]\nkind = \"number\"\n"
      "from = \"recording\"\nvalue = \"scenario.latency.result.median_network_ms / 2 x "
      "conditions.";
  EXPECT_EQ(error(std::string(kDraw) + exercise + "added_latency\"\n"), "(no error)");
  EXPECT_NE(error(std::string(kDraw) + exercise + "nope\"\n").find("lab.toml:11:"),
            std::string::npos);
}

}  // namespace
}  // namespace fabriclab::runner
