// Which setting goes on which link once the run's seed is known: the
// scenario's own settings, then its overrides in order, `seed:LABEL` links
// resolved with seed_pick (the grader's function for from = "seed").
#include "runner/lab/link_plan.h"

#include <gtest/gtest.h>

#include "runner/lab/lab_definition.h"
#include "runner/lab/seed_pick.h"
#include "runner/link/link_setting.h"

namespace fabriclab::runner {
namespace {

// A setting as load_lab() keeps it: parsed by its kind.
std::map<std::string, SettingValue> settings(
    std::initializer_list<std::pair<const char*, const char*>> written) {
  std::map<std::string, SettingValue> out;
  for (const auto& [key, text] : written) out[key] = find_link_setting(key)->parse(text);
  return out;
}

ScenarioDefinition slow_link_scenario() {
  ScenarioDefinition s;
  s.name = "slow";
  s.links = {"all"};
  s.link_ranks = {0, 1, 2, 3};  // what load_lab() resolves "all" to
  s.link_settings = settings({{"impair", "rate 400mbit"}});
  s.overrides = {{{"seed:slow_rank"}, settings({{"impair", "rate 100mbit"}})}};
  return s;
}

TEST(LinkPlan, ASeedLinkIsTheRankSeedPickChooses) {
  for (uint64_t seed : {0ull, 7ull, 1234567ull, 4242424242ull}) {
    std::map<std::string, int> picks;
    const std::vector<int> ranks = resolve_link_words({"seed:slow_rank"}, seed, 4, &picks);
    const int expected = static_cast<int>(seed_pick(seed, "slow_rank", 4));
    EXPECT_EQ(ranks, (std::vector<int>{expected})) << "seed " << seed;
    EXPECT_EQ(picks.at("slow_rank"), expected);
  }
  EXPECT_EQ(resolve_link_words({"r2", "all", "r0"}, 0, 3), (std::vector<int>{0, 1, 2}));
}

TEST(LinkPlan, LaterOverridesWinOnTheLinksTheyName) {
  const uint64_t seed = 1234567;
  const int slow = static_cast<int>(seed_pick(seed, "slow_rank", 4));
  const LinkPlan plan = plan_links(slow_link_scenario(), seed, 4);
  ASSERT_EQ(plan.assignments.size(), 2u);
  std::vector<int> fast;
  for (int r = 0; r < 4; ++r)
    if (r != slow) fast.push_back(r);
  // By key, then by each value's first rank.
  const LinkAssignment& first = plan.assignments[0];
  const LinkAssignment& second = plan.assignments[1];
  const LinkAssignment& fast_one = first.value.text() == "rate 400mbit" ? first : second;
  const LinkAssignment& slow_one = first.value.text() == "rate 400mbit" ? second : first;
  EXPECT_EQ(fast_one.key, "impair");
  EXPECT_EQ(fast_one.ranks, fast);
  EXPECT_EQ(slow_one.value.text(), "rate 100mbit");
  EXPECT_EQ(slow_one.ranks, (std::vector<int>{slow}));
  EXPECT_EQ(plan.picks.at("slow_rank"), slow);

  // A second override on the same link replaces the first; other keys stack.
  ScenarioDefinition s = slow_link_scenario();
  s.overrides.push_back({{"r" + std::to_string(slow)}, settings({{"impair", "rate 50mbit"}})});
  s.overrides.push_back({{"r0"}, settings({{"sysctl", "net.ipv4.tcp_ecn=1"}})});
  const LinkPlan layered = plan_links(s, seed, 4);
  bool saw_50 = false, saw_100 = false, saw_sysctl = false;
  for (const LinkAssignment& a : layered.assignments) {
    saw_50 = saw_50 || (a.value.text() == "rate 50mbit" && a.ranks == std::vector<int>{slow});
    saw_100 = saw_100 || a.value.text() == "rate 100mbit";
    saw_sysctl = saw_sysctl || (a.key == "sysctl" && a.ranks == std::vector<int>{0});
  }
  EXPECT_TRUE(saw_50);
  EXPECT_FALSE(saw_100) << "replaced by the later override";
  EXPECT_TRUE(saw_sysctl);
}

TEST(LinkPlan, AScenarioWithoutOverridesIsOneAssignmentPerKey) {
  ScenarioDefinition s;
  s.links = {"r1"};
  s.link_ranks = {1};
  s.link_settings = settings({{"impair", "delay 100ms"}, {"sysctl", "net.ipv4.tcp_ecn=1"}});
  const LinkPlan plan = plan_links(s, 99, 2);
  ASSERT_EQ(plan.assignments.size(), 2u);
  EXPECT_EQ(plan.assignments[0].key, "impair");
  EXPECT_EQ(plan.assignments[0].ranks, (std::vector<int>{1}));
  EXPECT_EQ(plan.assignments[1].key, "sysctl");
  EXPECT_TRUE(plan.picks.empty());
  EXPECT_TRUE(plan_links(ScenarioDefinition{}, 1, 2).assignments.empty());
}

TEST(LinkPlan, LinkWordsAreValidated) {
  EXPECT_NO_THROW(validate_link_word("all", 2));
  EXPECT_NO_THROW(validate_link_word("r1", 2));
  EXPECT_NO_THROW(validate_link_word("seed:slow_rank", 2));
  EXPECT_THROW(validate_link_word("r2", 2), std::invalid_argument);
  EXPECT_THROW(validate_link_word("seed:", 2), std::invalid_argument);
  EXPECT_THROW(validate_link_word("seed:Slow-Rank", 2), std::invalid_argument);
  EXPECT_THROW(validate_link_word("sw", 2), std::invalid_argument);
}

}  // namespace
}  // namespace fabriclab::runner
